import NIOCore

/// Splits server-to-client WebSocket bytes into frames and counts event frames, so a drop can be
/// placed exactly after the Nth event.
struct WebSocketFrameCounter {
    private var carry = ByteBuffer()
    private(set) var events = 0

    /// Takes the bytes not yet split into frames (for a fault that stops counting).
    mutating func drainCarry() -> ByteBuffer {
        let rest = carry
        carry = ByteBuffer()
        return rest
    }

    /// Returns the bytes that may be forwarded, and whether the event limit was reached.
    mutating func take(_ buffer: inout ByteBuffer, eventLimit: Int) -> (ByteBuffer, Bool) {
        carry.writeBuffer(&buffer)
        var out = ByteBuffer()
        while let frameLength = Self.frameLength(carry) {
            guard let frame = carry.readSlice(length: frameLength) else { break }
            var copy = frame
            out.writeBuffer(&copy)
            if Self.isEvent(frame) {
                events += 1
                if events >= eventLimit { return (out, true) }
            }
        }
        return (out, false)
    }

    private static func frameLength(_ buffer: ByteBuffer) -> Int? {
        let start = buffer.readerIndex
        guard let b1 = buffer.getInteger(at: start + 1, as: UInt8.self) else { return nil }
        let masked = b1 & 0x80 != 0
        var length = Int(b1 & 0x7F)
        var header = 2
        if length == 126 {
            guard let l = buffer.getInteger(at: start + 2, as: UInt16.self) else { return nil }
            length = Int(l)
            header = 4
        } else if length == 127 {
            guard let l = buffer.getInteger(at: start + 2, as: UInt64.self) else { return nil }
            length = Int(l)
            header = 10
        }
        let total = header + (masked ? 4 : 0) + length
        return buffer.readableBytes >= total ? total : nil
    }

    private static func isEvent(_ frame: ByteBuffer) -> Bool {
        guard let b0 = frame.getInteger(at: frame.readerIndex, as: UInt8.self), b0 & 0x0F == 0x1 else { return false }
        let text = frame.getString(at: frame.readerIndex, length: frame.readableBytes) ?? ""
        return text.contains("\"type\":\"event\"")
    }
}
