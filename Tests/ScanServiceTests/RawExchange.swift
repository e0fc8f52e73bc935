import BookscanTestSupport
import Foundation

/// One request written byte for byte on a fresh loopback connection (no client normalises the path:
/// curl would fold `/./` and `/../`), and the status of the first response head that comes back.
struct RawExchange: Sendable {
    let port: Int

    /// A WebSocket upgrade request's extra header lines.
    static let upgradeHeaders = [
        "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
    ]

    /// Sends `method target` with `headers` (and `body` with its length), reads the first response
    /// head and closes: a stream or an upgraded socket is not read further. The status, and the head.
    func send(_ method: String, _ target: String, headers: [String] = [], body: [UInt8]? = nil) async throws -> (status: Int?, head: String) {
        let port = self.port
        return try await onThread {
            let socket = try RawSocket(port: port)
            defer { socket.close() }
            var lines = ["\(method) \(target) HTTP/1.1", "Host: 127.0.0.1"] + headers
            if let body { lines += ["Content-Type: image/jpeg", "Content-Length: \(body.count)"] }
            if !headers.contains(where: { $0.hasPrefix("Connection:") }) { lines.append("Connection: close") }
            socket.send(lines.joined(separator: "\r\n") + "\r\n\r\n")
            // A refused body may be cut off while it is sent: what counts is the answer.
            if let body { socket.send(body) }
            let head = socket.readResponseHead()?.head ?? ""
            return (statusCode(head), head)
        }
    }

    /// Spellings of `path` a client may send: doubled, trailing and dot segments, a percent-encoded
    /// letter, another case. The router ignores empty segments, so some of these reach the route.
    static func spellings(of path: String) -> [String] {
        let tail = path.dropFirst()
        let encoded = tail.first.flatMap { $0.asciiValue }.map { "/%" + String(format: "%02X", $0) + tail.dropFirst() } ?? path
        return [
            path, "/" + path, "//" + path, path + "/", path + "//", path.replacingOccurrences(of: "/", with: "//"), "/." + path,
            path + "/.", "/x/.." + path, path + "/../" + (path.split(separator: "/").last ?? ""), encoded, path.uppercased(),
        ]
    }

    /// The spellings Hummingbird's router resolves to the same route as `path` (it skips empty segments).
    static func matchingSpellings(of path: String) -> [String] {
        [path, "/" + path, path + "/", path + "//", path.replacingOccurrences(of: "/", with: "//")]
    }
}
