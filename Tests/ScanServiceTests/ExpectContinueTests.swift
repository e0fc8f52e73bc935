import Foundation
import ScanProtocol
import ScanService
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Expect: 100-continue")
struct ExpectContinueTests {
    /// Sends the request head alone and reads what comes back before any body byte is sent.
    @Test("the service answers 100 Continue before the body, then 202 after it")
    func interimResponse() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        let jpeg = try SyntheticShelf.jpeg()
        let (interim, final) = try await Task.detached {
            try Self.exchange(port: harness.service.port, path: Routes.scan(UUID()), body: jpeg)
        }.value
        #expect(interim.hasPrefix("HTTP/1.1 100"))
        #expect(final.hasPrefix("HTTP/1.1 202"))
    }

    static func exchange(port: Int, path: String, body: [UInt8]) throws -> (String, String) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let head = "PUT \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: image/jpeg\r\nContent-Length: \(body.count)\r\nExpect: 100-continue\r\n\r\n"
        _ = head.withCString { send(fd, $0, strlen($0), 0) }
        let interim = receive(fd)
        _ = body.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        let final = receive(fd)
        return (interim, final)
    }

    static func receive(_ fd: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buffer, buffer.count, 0)
        return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
    }
}
