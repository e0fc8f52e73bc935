import Foundation

import ScanClient

#if canImport(Glibc)
import Glibc
#endif

/// A blocking loopback TCP socket for the bytes no real client sends (half heads, lies about
/// lengths, garbage frames). Blocking calls belong on a thread of their own: see `onThread`.
package struct RawSocket: Sendable {
    package let fd: Int32

    /// How a read loop ended.
    package enum Ending: Equatable, Sendable {
        case closed  // EOF or reset: the server closed the connection
        case timedOut  // the hang guard: the server kept it open
    }

    /// Connects to 127.0.0.1:`port`; a blocked send or receive fails after `hangGuard` seconds (generous: a loaded CI machine is slow).
    package init(port: Int, hangGuard: Int = 60) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var timeout = timeval(tv_sec: hangGuard, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw POSIXError(.ECONNREFUSED)
        }
        self.fd = fd
    }

    package func close() { _ = Glibc.close(fd) }

    /// Sends everything; false when the connection refuses more (closed, reset, or the hang guard).
    @discardableResult
    package func send(_ bytes: [UInt8]) -> Bool { Self.send(fd, bytes) }

    /// Writes all of `bytes` to `fd` (no SIGPIPE); false once the peer is gone.
    package static func send(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            offset += n
        }
        return true
    }

    @discardableResult
    package func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// One read: bytes, or nil at EOF / reset / hang guard (`ending` says which).
    package func receive(max: Int = 65536) -> (bytes: [UInt8]?, ending: Ending?) {
        var buffer = [UInt8](repeating: 0, count: max)
        let n = recv(fd, &buffer, max, 0)
        if n > 0 { return (Array(buffer[0..<n]), nil) }
        if n < 0, errno == EAGAIN || errno == EWOULDBLOCK { return (nil, .timedOut) }
        return (nil, .closed)
    }

    /// One read as the system call returns it: the byte count (0 at EOF, -1 on error) and errno
    /// (ECONNRESET tells a TCP RST from a FIN).
    package func readOnce(max: Int = 4096) -> (count: Int, error: Int32) {
        var buffer = [UInt8](repeating: 0, count: max)
        let n = recv(fd, &buffer, max, 0)
        return (n, n < 0 ? errno : 0)
    }

    /// Reads until the server closes (or the hang guard fires); everything received, and how it ended.
    package func readUntilClosed() -> (text: String, ending: Ending) {
        var all: [UInt8] = []
        while true {
            let (bytes, ending) = receive()
            if let bytes { all += bytes } else { return (String(decoding: all, as: UTF8.self), ending ?? .closed) }
        }
    }

    /// Reads one HTTP response head (through the blank line) plus whatever came with it.
    package func readResponseHead() -> (head: String, rest: [UInt8])? {
        var all: [UInt8] = []
        let blank: [UInt8] = [13, 10, 13, 10]
        while true {
            if let end = all.indices.first(where: { all[$0...].starts(with: blank) }) {
                return (String(decoding: all[..<end], as: UTF8.self), Array(all[(end + 4)...]))
            }
            guard let bytes = receive().bytes else { return nil }
            all += bytes
        }
    }

    /// Whether the server closes the connection while nothing is sent (EOF or reset before the guard).
    package func waitForClose() -> Bool { readUntilClosed().ending == .closed }
}

/// Runs blocking socket work on a thread of its own, never on the cooperative pool.
/// Runs `body` on a thread of its own, off Swift's cooperative pool: for blocking I/O, and for the
/// seconds of CPU a scan or OCR takes in a test, which on a 2-core machine would otherwise hold one of
/// the pool's two threads and starve every other test's tasks and timers (seen: fault-campaign jobs
/// stretched from 4 s to 36 s while sample scans ran beside them).
package func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await BlockingThread.run { Result { try body() } }.get()
}

/// The status line's code of an HTTP response text, or nil.
package func statusCode(_ response: String) -> Int? {
    let parts = response.split(separator: " ", maxSplits: 2)
    guard parts.count >= 2, parts[0].hasPrefix("HTTP/1.") else { return nil }
    return Int(parts[1])
}

/// The body of an HTTP response text (after the blank line).
package func responseBody(_ response: String) -> String {
    guard let range = response.range(of: "\r\n\r\n") else { return "" }
    return String(response[range.upperBound...])
}
