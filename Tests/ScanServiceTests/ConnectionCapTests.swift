import BookscanTestSupport
import Foundation
import ScanProtocol
import ScanService
import Testing

/// The total connection cap beside the per-address one: many addresses together cannot take every
/// connection (and file) the service has.
@Suite("Connection cap of the whole service")
struct ConnectionCapTests {
    static let request = "GET \(Routes.health) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    @Test("at a total cap of 3 (per-address cap higher) the 4th connection gets 503 too_many_connections naming the service; closing one frees a slot")
    func totalCap() async throws {
        try await ServiceHarness.with(
            .init(maxConnectionsPerClient: 10, maxConnections: 3, headerTimeout: .seconds(60), retryAfterSeconds: 3)) { harness in
            let port = harness.service.port
            let (heads, refused) = try await onThread {
                // Each of the three answers once, so the server has surely counted it before the fourth.
                let open = try (0..<3).map { _ in try RawSocket(port: port) }
                let heads = open.map { socket in
                    socket.send(Self.request)
                    return socket.readResponseHead()?.head ?? ""
                }
                let fourth = try RawSocket(port: port)
                defer { fourth.close() }
                fourth.send(Self.request)
                let refused = fourth.readUntilClosed()
                for socket in open { socket.close() }
                return (heads, refused)
            }
            #expect(heads.map(statusCode) == [200, 200, 200])
            #expect(statusCode(refused.text) == 503)
            #expect(refused.text.contains("Retry-After: 3"))
            #expect(responseBody(refused.text).contains(#""too_many_connections""#))
            #expect(responseBody(refused.text).contains("the service already has 3 open connections"))
            #expect(refused.ending == .closed)
            var status: Int?
            // A hang guard, not a timing assertion: the server sees the closes a moment later.
            let hangGuard = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < hangGuard, status != 200 {
                status = try await onThread {
                    let socket = try RawSocket(port: port)
                    defer { socket.close() }
                    socket.send(Self.request)
                    return statusCode(socket.readResponseHead()?.head ?? "")
                }
                if status != 200 { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(status == 200)
        }
    }

    @Test("the per-address cap still answers for itself below the total cap")
    func perAddressBelowTotal() async throws {
        try await ServiceHarness.with(.init(maxConnectionsPerClient: 2, maxConnections: 10, headerTimeout: .seconds(60))) { harness in
            let port = harness.service.port
            let refused = try await onThread {
                let open = try (0..<2).map { _ in try RawSocket(port: port) }
                defer { open.forEach { $0.close() } }
                for socket in open {
                    socket.send(Self.request)
                    _ = socket.readResponseHead()
                }
                let third = try RawSocket(port: port)
                defer { third.close() }
                third.send(Self.request)
                return third.readUntilClosed().text
            }
            #expect(statusCode(refused) == 503)
            #expect(responseBody(refused).contains("this address already has 2 open connections"))
        }
    }
}
