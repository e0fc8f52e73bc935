import BookscanTestSupport
import Foundation
import ScanAnalytics
import ScanClient
import ScanProtocol
import ScanService
import Testing

/// `POST /v1/analytics` on a real service: the `100 Continue` a client that asks for it waits for. The hostile
/// records below are refused in process (`InProcessWebRouteTests.hostileFieldRefused`).
@Suite("Analytics ingest: Expect: 100-continue and the range of every field")
struct AnalyticsIngestTests {
    /// The request head alone with `Expect: 100-continue`: the interim answer comes before any body byte.
    @Test("POST /v1/analytics with Expect: 100-continue gets 100 Continue before the body, then 204")
    func continueBeforeBody() async throws {
        let log = WebClientTests.temporaryLog()
        defer { try? FileManager.default.removeItem(atPath: log) }
        try await WebClientTests.with(analyticsLog: log) { harness in
            let port = harness.service.port
            let body = WebClientTests.webRecord()
            let (interim, final) = try await onThread {
                let socket = try RawSocket(port: port, hangGuard: 20)
                defer { socket.close() }
                socket.send(
                    "POST \(Routes.analytics) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(WebClientTests.token)\r\n"
                        + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nExpect: 100-continue\r\n\r\n")
                let interim = socket.readResponseHead()?.head ?? ""
                socket.send(body)
                let final = socket.readResponseHead()?.head ?? ""
                return (interim, final)
            }
            #expect(interim.hasPrefix("HTTP/1.1 100"), "interim: \(interim)")
            #expect(final.hasPrefix("HTTP/1.1 204"), "final: \(final)")
        }
    }

    /// The page's record with one field replaced by a hostile value.
    static func record(replacing field: String, with value: String) -> [UInt8] {
        var object = (try? JSONSerialization.jsonObject(with: Data(WebClientTests.webRecord()))) as? [String: Any] ?? [:]
        object[field] = try? JSONSerialization.jsonObject(with: Data(value.utf8), options: .fragmentsAllowed)
        return Array((try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }

    static let hostileFields: [(field: String, value: String)] = [
        ("uploadAttempts", "-5"), ("resubmissions", "-9"), ("fallbackStatus", "-7"), ("fallbackStatus", "99"), ("fallbackStatus", "600"),
        ("reconnects", "-1"), ("socketFailures", "-1"), ("streamFailures", "-1"), ("polls", "-1"), ("bytesUp", "-1"), ("spinesFound", "-1"),
        ("uploadAttempts", "\(WireNumbers.maxCount + 1)"), ("eventsByPath", #"{"\#(String(repeating: "p", count: 12_000))":1}"#),
        ("eventsByPath", #"{"\#(String(repeating: "p", count: 33))":1}"#), ("eventsByPath", #"{"sse":-1}"#),
        ("timestamp", #""9999-12-31T00:00:00.000Z""#), ("timestamp", #""2001-01-01T00:00:00.000Z""#),
        ("uploadSeconds", "-0.5"), ("firstEventSeconds", "-1"), ("network", #""\#(String(repeating: "n", count: 129))""#),
        ("jobId", #""\#(String(repeating: "j", count: 65))""#), ("bookscanVersion", #""\#(String(repeating: "v", count: 65))""#),
    ]
}
