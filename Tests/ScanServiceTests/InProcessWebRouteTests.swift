import BookscanTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import RunModel
import ScanAnalytics
import ScanProtocol
import ScanService
import Testing

/// The web page's routes, `POST /v1/analytics` and `GET /openapi.yaml`, in process (`InProcessService`):
/// content types, caching, the page's policy headers, the analytics route's token, limits and every field it
/// checks, the contract document. What depends on the connection (the policy's own address against a forged
/// Host, `100 Continue`) and the real browser stay on the real server in `WebClientTests` and
/// `AnalyticsIngestTests`.
@Suite("Web page, analytics and OpenAPI routes, in process")
struct InProcessWebRouteTests {
    /// A service with the web client's token, writing analytics to `log` when given.
    static func service(analyticsLog: String? = nil, token: String? = WebClientTests.token) -> InProcessService {
        var configuration = ServiceConfiguration(token: token)
        configuration.analyticsLogPath = analyticsLog
        return InProcessService(configuration)
    }

    /// Posts `body` as the page does.
    static func post(_ service: InProcessClient, _ body: [UInt8], token: String? = nil, type: String = "application/json")
        async throws -> TestResponse
    {
        try await service.send(.post, Routes.analytics, body: body, token: token, headers: [.contentType: type])
    }

    @Test("the page and every module are open, typed, revalidated by ETag and under a strict policy without inline script")
    func pageAndModules() async throws {
        try await Self.service().test { service in
            let page = try await service.send(.get, "/", token: "")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let html = page.text
            #expect(html.contains("capture=\"environment\"") && html.contains("accept=\"image/*\""))
            #expect(!html.contains("<script>") && html.range(of: #" on[a-z]+="#, options: .regularExpression) == nil, "no inline script or handler")
            let policy = try #require(page.headers[.contentSecurityPolicy])
            #expect(policy.contains("default-src 'self'") && policy.contains("script-src 'self'") && policy.contains("img-src 'self' blob: data:"))
            #expect(!policy.contains("unsafe-inline"))
            #expect(page.headers[.xContentTypeOptions] == "nosniff")

            for module in ["app.js", "merge.js", "tracker.js", "upload.js", "result.js", "booklist.js"] {
                let file = try await service.send(.get, "/web/" + module, token: "")
                #expect(file.status == .ok, "\(module)")
                #expect(file.headers[.contentType] == "text/javascript; charset=utf-8", "\(module)")
                #expect(file.headers[.cacheControl] == "no-cache", "\(module)")
                let etag = try #require(file.headers[.eTag], "\(module)")
                let again = try await service.send(.get, "/web/" + module, token: "", headers: [.ifNoneMatch: etag])
                #expect(again.status == .notModified && again.body.readableBytes == 0, "\(module)")
                #expect(try await service.send(.get, "/web/" + module, token: "", headers: [.ifNoneMatch: "\"stale\""]).status == .ok)
            }
            #expect(try await service.send(.get, "/web/app.css", token: "").headers[.contentType] == "text/css; charset=utf-8")
            #expect(try await service.send(.get, "/web/../Package.swift", token: "").status == .notFound)
            #expect(try await service.send(.get, "/web/secret.js", token: "").status == .notFound)
        }
    }

    @Test("POST /v1/analytics appends the web client's record to the log, readable by stats; without the token or with a wrong one 401")
    func analyticsAppends() async throws {
        let log = WebClientTests.temporaryLog()
        defer { try? FileManager.default.removeItem(atPath: log) }
        try await Self.service(analyticsLog: log).test { service throws in
            #expect(try await Self.post(service, WebClientTests.webRecord(), token: "").status == .unauthorized)
            #expect(try await Self.post(service, WebClientTests.webRecord(), token: "wrong").status == .unauthorized)
            #expect(!FileManager.default.fileExists(atPath: log))
            #expect(try await Self.post(service, WebClientTests.webRecord()).status == .noContent)
            #expect(try await Self.post(service, WebClientTests.webRecord(command: "batch")).status == .noContent)
        }
        let read = AnalyticsLog(path: log).read()
        #expect(read.records.count == 2)
        #expect(read.records.first?.strategy == .sse && read.records.first?.fallbackFrom == .websocket)
        #expect(read.records.map(\.command) == ["scan", "batch"])
    }

    @Test("a record that is not the web client's, not a record, too large or not JSON is refused and not written")
    func analyticsRefuses() async throws {
        let log = WebClientTests.temporaryLog()
        defer { try? FileManager.default.removeItem(atPath: log) }
        try await Self.service(analyticsLog: log).test { service in
            #expect(try await Self.post(service, WebClientTests.webRecord(client: "cli")).status == .badRequest)
            #expect(try await Self.post(service, WebClientTests.webRecord(command: "serve")).status == .badRequest)
            #expect(try await Self.post(service, WebClientTests.webRecord(totalSeconds: -1)).status == .badRequest)
            #expect(try await Self.post(service, Array(#"{"client":"web"}"#.utf8)).status == .badRequest)
            #expect(try await Self.post(service, Array("[1,2]".utf8)).status == .badRequest)
            #expect(try await Self.post(service, WebClientTests.webRecord(), type: "text/plain").status == .unsupportedMediaType)
            let huge = try await Self.post(service, [UInt8](repeating: 0x20, count: 64 * 1024) + WebClientTests.webRecord())
            #expect(huge.status == .contentTooLarge)
            #expect(huge.errorBody?.code == .payloadTooLarge)
        }
        #expect(!FileManager.default.fileExists(atPath: log))
    }

    @Test("a record with any hostile field is refused with 400 bad_request and nothing is written", arguments: AnalyticsIngestTests.hostileFields)
    func hostileFieldRefused(field: String, value: String) async throws {
        let log = WebClientTests.temporaryLog()
        defer { try? FileManager.default.removeItem(atPath: log) }
        try await Self.service(analyticsLog: log).test { service in
            let answer = try await Self.post(service, AnalyticsIngestTests.record(replacing: field, with: value))
            #expect(answer.status == .badRequest, "\(field) = \(value.prefix(40))")
            #expect(answer.errorBody?.code == .badRequest, "\(field) = \(value.prefix(40))")
            #expect(!FileManager.default.fileExists(atPath: log), "\(field) = \(value.prefix(40)) was written")
            // The same record without the hostile value is taken: the 400 was for that field alone.
            #expect(try await Self.post(service, WebClientTests.webRecord()).status == .noContent)
        }
    }

    @Test("without an analytics log the route answers 404 not_found")
    func analyticsWithoutLog() async throws {
        try await Self.service(token: nil).test { service in
            let answer = try await Self.post(service, WebClientTests.webRecord())
            #expect(answer.status == .notFound)
            #expect(answer.errorBody?.code == .notFound)
        }
    }

    @Test("GET /openapi.yaml is the OpenAPI 3.1 document naming every route of protocol v1, without the token")
    func openAPIDocument() async throws {
        try await InProcessService(ServiceConfiguration(token: MetricsTests.token)).test { service in
            let response = try await service.send(.get, Routes.openAPI, token: "")
            #expect(response.status == .ok && response.headers[.contentType] == "application/yaml")
            let text = response.text
            #expect(text.hasPrefix("openapi: 3.1") || text.contains("\nopenapi: 3.1"))
            for path in ["/v1/scans/{jobId}:", "/v1/scans/{jobId}/events:", "/v1/events:", "/v1/limits:", "/healthz:", "/metrics:", "/openapi.yaml:"] {
                #expect(text.contains("  \(path)"), "\(path)")
            }
        }
    }
}
