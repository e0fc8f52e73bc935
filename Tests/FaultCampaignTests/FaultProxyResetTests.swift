import BookscanTestSupport
import FaultProxy
import Foundation
import Logging
import ScanService
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The proxy's reset is a real TCP RST (the peer's read fails with ECONNRESET), not a FIN.
@Suite("Fault proxy resets")
struct FaultProxyResetTests {
    /// What a raw client socket saw after sending `bytes`: the read's return value and errno.
    static func sendThenRead(port: Int, bytes: [UInt8]) async throws -> (read: Int, error: Int32) {
        try await onThread {
            let socket = try RawSocket(port: port)
            defer { socket.close() }
            guard socket.send(bytes) else { return (-3, errno) }
            let read = socket.readOnce()
            return (read.count, read.error)
        }
    }

    @Test("resetAfterRequestBytes cuts an upload with a TCP RST")
    func uploadReset() async throws {
        let service = try await EmbeddedScanService.startQuietly()
        let proxy = try await FaultProxy.start(upstreamPort: service.port) { _ in .resetAfterRequestBytes(300) }
        let head = "PUT /v1/scans/\(UUID().uuidString.lowercased()) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: image/jpeg\r\nContent-Length: 5000\r\n\r\n"
        // One segment a little past the limit: the proxy reads it all, so a plain close would be a FIN.
        let bytes = Array(head.utf8) + [UInt8](repeating: 0xFF, count: 400 - head.utf8.count)
        let (read, error) = try await Self.sendThenRead(port: proxy.port, bytes: bytes)
        await proxy.stop()
        await service.stop()
        #expect(read == -1)
        #expect(error == ECONNRESET)
    }
}
