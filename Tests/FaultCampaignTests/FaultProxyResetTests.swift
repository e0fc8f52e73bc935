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
    static func sendThenRead(port: Int, bytes: [UInt8]) async -> (read: Int, error: Int32) {
        await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: blockingSendThenRead(port: port, bytes: bytes))
            }.start()
        }
    }

    private static func blockingSendThenRead(port: Int, bytes: [UInt8]) -> (read: Int, error: Int32) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return (-2, errno) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return (-2, errno) }
        let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == bytes.count else { return (-3, errno) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let read = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        return (read, read < 0 ? errno : 0)
    }

    @Test("resetAfterRequestBytes cuts an upload with a TCP RST")
    func uploadReset() async throws {
        var logger = Logger(label: "test.service")
        logger.logLevel = .critical
        let service = try await EmbeddedScanService.start(logger: logger)
        let proxy = try await FaultProxy.start(upstreamPort: service.port) { _ in .resetAfterRequestBytes(300) }
        let head = "PUT /v1/scans/\(UUID().uuidString.lowercased()) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: image/jpeg\r\nContent-Length: 5000\r\n\r\n"
        // One segment a little past the limit: the proxy reads it all, so a plain close would be a FIN.
        let bytes = Array(head.utf8) + [UInt8](repeating: 0xFF, count: 400 - head.utf8.count)
        let (read, error) = await Self.sendThenRead(port: proxy.port, bytes: bytes)
        await proxy.stop()
        await service.stop()
        #expect(read == -1)
        #expect(error == ECONNRESET)
    }
}
