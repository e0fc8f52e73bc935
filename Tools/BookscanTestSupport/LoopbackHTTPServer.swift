import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on a loopback port, made of blocking sockets and plain threads: it answers
/// each request with whatever `respond` returns, keeps connections alive, and counts the TCP
/// connections it accepted. For tests that need a server saying what no real service says (extreme
/// numbers) or that must see how a client uses connections.
package final class LoopbackHTTPServer: Sendable {
    /// One request as received.
    package struct Request: Sendable {
        package var method: String
        /// Path and query, as sent.
        package var target: String
        /// Lower-cased header names.
        package var headers: [String: String]
        package var body: [UInt8]
    }

    /// What to answer.
    package struct Response: Sendable {
        package var status: Int
        package var headers: [(String, String)]
        package var body: [UInt8]
        /// Send the body in 64 KiB chunks (`Transfer-Encoding: chunked`), its length declared nowhere.
        package var chunked: Bool

        package init(status: Int, headers: [(String, String)] = [], body: [UInt8] = [], chunked: Bool = false) {
            self.status = status
            self.headers = headers
            self.body = body
            self.chunked = chunked
        }

        /// A JSON body given as text.
        package static func json(_ status: Int, _ text: String) -> Response {
            Response(status: status, headers: [("Content-Type", "application/json")], body: Array(text.utf8))
        }
    }

    package let port: Int
    private let listener: Int32
    private let respond: @Sendable (Request) -> Response
    private let state = NIOLockedValueBox<(connections: Int, requests: [String], open: [Int32], stopped: Bool)>((0, [], [], false))

    /// Listens on 127.0.0.1 at a free port and serves until `stop()`.
    package init(respond: @escaping @Sendable (Request) -> Response) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, listen(fd, 64) == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        self.respond = respond
        Thread { [self] in acceptLoop() }.start()
    }

    /// TCP connections accepted so far.
    package var connections: Int { state.withLockedValue { $0.connections } }
    /// `METHOD target` of every request so far, in order.
    package var requests: [String] { state.withLockedValue { $0.requests } }

    /// Stops accepting and closes every open connection.
    package func stop() {
        let open = state.withLockedValue { s in
            s.stopped = true
            return s.open
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else {
                if errno == EINTR { continue }
                return
            }
            let stopped = state.withLockedValue { s in
                s.connections += 1
                s.open.append(fd)
                return s.stopped
            }
            if stopped {
                close(fd)
                return
            }
            Thread { [self] in serve(fd) }.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer {
            state.withLockedValue { $0.open.removeAll { $0 == fd } }
            close(fd)
        }
        var buffer: [UInt8] = []
        let blank: [UInt8] = [13, 10, 13, 10]
        while true {
            var end: Int?
            while end == nil {
                end = buffer.count >= 4 ? (0...(buffer.count - 4)).first { buffer[$0..<($0 + 4)].elementsEqual(blank) } : nil
                if end == nil {
                    guard let more = read(fd) else { return }
                    buffer += more
                }
            }
            guard let headEnd = end else { return }
            let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
            buffer.removeFirst(headEnd + 4)
            let lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.first?.split(separator: " ") ?? []
            guard requestLine.count >= 2 else { return }
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            let length = headers["content-length"].flatMap { Int($0) } ?? 0
            while buffer.count < length {
                guard let more = read(fd) else { return }
                buffer += more
            }
            let body = Array(buffer.prefix(length))
            buffer.removeFirst(length)
            let request = Request(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body)
            state.withLockedValue { $0.requests.append("\(request.method) \(request.target)") }
            let response = respond(request)
            var text = "HTTP/1.1 \(response.status) X\r\n"
            text += response.chunked ? "Transfer-Encoding: chunked\r\n" : "Content-Length: \(response.body.count)\r\n"
            for (name, value) in response.headers { text += "\(name): \(value)\r\n" }
            text += "\r\n"
            guard RawSocket.send(fd, Array(text.utf8) + (response.chunked ? Self.chunks(response.body) : response.body)) else { return }
        }
    }

    /// `body` in the chunked transfer coding: 64 KiB chunks, then the last (empty) chunk.
    private static func chunks(_ body: [UInt8]) -> [UInt8] {
        var coded: [UInt8] = []
        var start = 0
        while start < body.count {
            let end = min(body.count, start + 65536)
            coded += Array((String(end - start, radix: 16) + "\r\n").utf8) + body[start..<end] + [13, 10]
            start = end
        }
        return coded + Array("0\r\n\r\n".utf8)
    }

    private func read(_ fd: Int32) -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        return n > 0 ? Array(chunk[0..<n]) : nil
    }
}
