import BookscanTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ScanProtocol
import ScanService
import Testing

/// The router's rules — who may call what, what a route lacks, the test seams' middleware — run in
/// process through HummingbirdTesting (`ScanServer.inProcess`, no socket). What depends on the
/// connection (upgrades, caps, body rates, path spellings a client sends raw) is tested on the real
/// server in `AuthenticationTests`, `RefusedUpgradeTests` and the abuse suites.
@Suite("Routes and middleware in process")
struct InProcessRouteTests {
    static let token = "in-process-token"
    static let bearer: HTTPFields = [.authorization: "Bearer \(token)"]

    /// The application of a service with the token and `faults`.
    static func application(_ faults: FaultSeams = FaultSeams()) -> some ApplicationProtocol {
        ScanServer.inProcess(configuration: ServiceConfiguration(token: token).injecting(faults), logger: .quiet("bookscan.in-process"))
    }

    /// The status `client` gets for `method` on `uri`.
    static func status(
        _ client: some TestClientProtocol, _ uri: String, _ method: HTTPRequest.Method = .get, headers: HTTPFields = [:]
    ) async throws -> HTTPResponse.Status {
        try await client.execute(uri: uri, method: method, headers: headers) { response in response.status }
    }

    /// Uploads a synthetic shelf as a new job (accepted and queued: the in-process service has no workers).
    static func upload(_ client: some TestClientProtocol) async throws -> UUID {
        let id = UUID()
        var headers = bearer
        headers[.contentType] = "image/jpeg"
        let jpeg = try SyntheticShelf.jpeg()
        let status = try await client.execute(uri: Routes.scan(id), method: .put, headers: headers, body: ByteBuffer(bytes: jpeg)) { response in
            response.status
        }
        #expect(status == .accepted)
        return id
    }

    @Test("the public routes answer without a token; every other route wants it")
    func publicAndGuardedRoutes() async throws {
        try await Self.application().test(.router) { (client) async throws in
            #expect(try await Self.status(client, Routes.health, .get) == .ok)
            #expect(try await Self.status(client, Routes.openAPI, .get) == .ok)
            #expect(try await Self.status(client, Routes.limits, .get) == .unauthorized)
            #expect(try await Self.status(client, Routes.limits, .get, headers: Self.bearer) == .ok)
            #expect(try await Self.status(client, Routes.metrics, .get) == .unauthorized)
        }
    }

    @Test("an empty credential never matches, even a service given an empty token: the events route's empty access_token too")
    func emptyCredential() async throws {
        let application = ScanServer.inProcess(configuration: ServiceConfiguration(token: ""), logger: .quiet("bookscan.in-process"))
        try await application.test(.router) { (client) async throws in
            #expect(try await Self.status(client, Routes.limits, .get, headers: [.authorization: "Bearer "]) == .unauthorized)
            #expect(try await Self.status(client, Routes.limits, .get, headers: [.authorization: "Bearer  "]) == .unauthorized)
            let events: String = Routes.multiplexedEvents + "?\(ProtocolNames.jobsQuery)=\(UUID().uuidString.lowercased())&\(ProtocolNames.accessTokenQuery)="
            #expect(try await Self.status(client, events, .get, headers: [.accept: EventStreamWire.mediaType]) == .unauthorized)
        }
    }

    @Test("a method a route lacks is 405 with Allow for callers with the token, 401 without; an unknown path is 404 JSON")
    func unmatchedRoutes() async throws {
        try await Self.application().test(.router) { (client) async throws in
            #expect(try await Self.status(client, Routes.limits, .post) == .unauthorized)
            try await client.execute(uri: Routes.limits, method: .post, headers: Self.bearer) { response in
                #expect(response.status == .methodNotAllowed)
                #expect(response.headers[.allow] == "GET, HEAD")
            }
            #expect(try await Self.status(client, Routes.health, .post) == .methodNotAllowed)
            try await client.execute(uri: "/no/such/route", method: .get, headers: Self.bearer) { response in
                #expect(response.status == .notFound)
                let error = try WireCoding.decoder().decode(ErrorResponse.self, from: Data(response.body.readableBytesView))
                #expect(error.error.code == .notFound)
            }
        }
    }

    @Test("a CMYK JPEG (Adobe's, as scanners save) is accepted like any photo, not refused as undecodable")
    func cmykUpload() async throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../ImageKitTests/Fixtures/cmyk_adobe.jpg")
        let jpeg = try Data(contentsOf: fixture)
        try await Self.application().test(.router) { (client) async throws in
            var headers = Self.bearer
            headers[.contentType] = "image/jpeg"
            let status = try await client.execute(uri: Routes.scan(UUID()), method: .put, headers: headers, body: ByteBuffer(bytes: jpeg)) { $0.status }
            #expect(status == .accepted)
        }
    }

    @Test("an upload is accepted and its job is readable at once, queued (no workers in process)")
    func uploadThenPoll() async throws {
        try await Self.application().test(.router) { (client) async throws in
            let id = try await Self.upload(client)
            try await client.execute(uri: Routes.scan(id), method: .get, headers: Self.bearer) { response in
                #expect(response.status == .ok)
                let snapshot = try WireCoding.decoder().decode(JobSnapshot.self, from: Data(response.body.readableBytesView))
                #expect(snapshot.jobId == id)
                #expect(snapshot.state == .queued)
            }
        }
    }

    @Test("refused events (test seam): both events routes answer the injected 503 with Retry-After, after the token check")
    func refusedEvents() async throws {
        try await Self.application(FaultSeams(refuseUpgradeStatus: 503)).test(.router) { (client) async throws in
            let id = try await Self.upload(client)
            var stream = Self.bearer
            stream[.accept] = EventStreamWire.mediaType
            let routes = [
                Routes.scan(id) + "/" + Routes.eventsSuffix + "?\(ProtocolNames.afterQuery)=0",
                Routes.multiplexedEvents + "?\(ProtocolNames.jobsQuery)=\(id.uuidString.lowercased())",
            ]
            for route in routes {
                try await client.execute(uri: route, method: .get, headers: stream) { response in
                    #expect(response.status == .serviceUnavailable, "\(route)")
                    #expect(response.headers[.retryAfter] == "1", "\(route)")
                }
                #expect(try await Self.status(client, route, .get, headers: [.accept: EventStreamWire.mediaType]) == .unauthorized)
            }
            // A job id that is no UUID is the route's own 400, not the fault's.
            let bad = Routes.scansPrefix + "/not-a-uuid/" + Routes.eventsSuffix
            #expect(try await Self.status(client, bad, .get, headers: stream) == .badRequest)
            // Polling is untouched.
            #expect(try await Self.status(client, Routes.scan(id), .get, headers: Self.bearer) == .ok)
        }
    }

    @Test("failing polls (test seam): every third status poll is a 500, the others answer the job")
    func failingPolls() async throws {
        try await Self.application(FaultSeams(failEveryNthPoll: 3)).test(.router) { (client) async throws in
            let id = try await Self.upload(client)
            var statuses: [HTTPResponse.Status] = []
            for _ in 0..<6 {
                statuses.append(try await Self.status(client, Routes.scan(id), headers: Self.bearer))
            }
            #expect(statuses == [.ok, .ok, .internalServerError, .ok, .ok, .internalServerError])
            // Other routes are not counted.
            #expect(try await Self.status(client, Routes.limits, .get, headers: Self.bearer) == .ok)
        }
    }
}
