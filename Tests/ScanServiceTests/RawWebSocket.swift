import BookscanTestSupport
import Foundation

/// A hand-made WebSocket client over a `RawSocket`, for frames WSClient would never send: invalid
/// UTF-8, binary, frames over the size limit. Blocking: use it inside `onThread`.
final class RawWebSocket {
    let socket: RawSocket
    private var buffer: [UInt8] = []

    init(socket: RawSocket) {
        self.socket = socket
    }

    static func upgradeRequest(path: String, headers: [String] = []) -> String {
        (["GET \(path) HTTP/1.1", "Host: 127.0.0.1", "Upgrade: websocket", "Connection: Upgrade",
          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"] + headers)
            .joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// Sends the upgrade request; returns the response head (frames that came with it are kept).
    func handshake(path: String) -> String? {
        socket.send(Self.upgradeRequest(path: path))
        guard let (head, rest) = socket.readResponseHead() else { return nil }
        buffer = rest
        return head
    }

    /// Sends one masked frame; `declaredLength` lets the header claim more than the payload carries.
    func send(opcode: UInt8, payload: [UInt8], fin: Bool = true, declaredLength: Int? = nil) {
        let length = declaredLength ?? payload.count
        var frame: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        if length < 126 {
            frame.append(0x80 | UInt8(length))
        } else if length <= 0xFFFF {
            frame += [0x80 | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((length >> ($0 * 8)) & 0xFF) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        socket.send(frame)
    }

    /// Reads server frames until a close frame; its status code, or nil if the connection ended
    /// (or the hang guard fired) without one. `textFrames` counts the text frames seen before it.
    func readUntilClose() -> (code: UInt16?, textFrames: Int) {
        var texts = 0
        while let (opcode, payload) = nextFrame() {
            switch opcode {
            case 0x1: texts += 1
            case 0x8: return (payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil, texts)
            default: continue
            }
        }
        return (nil, texts)
    }

    private func nextFrame() -> (UInt8, [UInt8])? {
        guard fill(2) else { return nil }
        let opcode = buffer[0] & 0x0F
        var length = Int(buffer[1] & 0x7F)
        var header = 2
        if length == 126 {
            guard fill(4) else { return nil }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            header = 4
        } else if length == 127 {
            guard fill(10) else { return nil }
            length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
            header = 10
        }
        guard fill(header + length) else { return nil }
        let payload = Array(buffer[header..<(header + length)])
        buffer.removeFirst(header + length)
        return (opcode, payload)
    }

    private func fill(_ count: Int) -> Bool {
        while buffer.count < count {
            guard let bytes = socket.receive().bytes else { return false }
            buffer += bytes
        }
        return true
    }
}
