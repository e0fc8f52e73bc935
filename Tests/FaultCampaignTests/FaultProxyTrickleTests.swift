import BookscanTestSupport
import FaultProxy
import Foundation
import ScanProtocol
import ScanService
import Testing

/// The proxy's trickle passes the server's whole response, in order, only slowly.
@Suite("Fault proxy trickle")
struct FaultProxyTrickleTests {
    /// One `GET path` with `Connection: close` to `port`; the whole response text.
    static func get(_ path: String, port: Int) async throws -> String {
        try await onThread {
            let socket = try RawSocket(port: port)
            defer { socket.close() }
            socket.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            return socket.readUntilClosed().text
        }
    }

    @Test("a trickled response is the server's response, byte for byte, head and body")
    func trickledResponseIsWhole() async throws {
        let service = try await EmbeddedScanService.startQuietly()
        // 4 KB/s: the response comes in pieces of 200 bytes, 50 ms apart.
        let proxy = try await FaultProxy.start(upstreamPort: service.port) { _ in .trickle(bytesPerSecond: 4000) }
        let direct = try await Self.get(Routes.limits, port: service.port)
        let trickled = try await Self.get(Routes.limits, port: proxy.port)
        await proxy.stop()
        await service.stop()
        #expect(statusCode(trickled) == 200)
        #expect(!responseBody(direct).isEmpty)
        #expect(responseBody(trickled) == responseBody(direct))
        #expect(proxy.requests.map(\.1) == [.trickle(bytesPerSecond: 4000)])
    }
}
