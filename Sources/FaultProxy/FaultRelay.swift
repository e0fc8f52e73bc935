import NIOCore
import NIOPosix

/// Moves bytes between the client and server channels of one connection (both on one event
/// loop), applying the connection's fault.
final class FaultRelay {
    private let fault: ConnectionFault
    private let client: any Channel
    private var upstream: (any Channel)?
    private var pendingToServer: [ByteBuffer] = []
    private var requestBytes = 0
    private var responseHeadDone = false
    private var responseHead = ByteBuffer()
    private var frames = WebSocketFrameCounter()
    private var finished = false

    init(fault: ConnectionFault, client: any Channel) {
        self.fault = fault
        self.client = client
    }

    func attach(upstream: any Channel) {
        self.upstream = upstream
        for buffer in pendingToServer { upstream.writeAndFlush(buffer, promise: nil) }
        pendingToServer.removeAll()
    }

    func fromClient(_ buffer: inout ByteBuffer) {
        guard !finished, buffer.readableBytes > 0 else { return }
        switch fault {
        case .silentAfterResponseHead where responseHeadDone:
            return
        case .resetAfterRequestBytes(let limit):
            let allowed = max(0, limit - requestBytes)
            if buffer.readableBytes > allowed {
                if allowed > 0, let slice = buffer.readSlice(length: allowed) { toServer(slice) }
                requestBytes = limit
                reset()
                return
            }
            requestBytes += buffer.readableBytes
            toServer(buffer)
        case .delay(let delay):
            let copy = buffer
            client.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(delay.components.seconds) * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000)) {
                self.toServer(copy)
            }
        default:
            toServer(buffer)
        }
    }

    func fromServer(_ buffer: inout ByteBuffer) {
        guard !finished else { return }
        switch fault {
        case .stall:
            return
        case .silentAfterResponseHead:
            if responseHeadDone { return }
            forwardResponseHead(&buffer)
        case .dropAfterEvents(let limit):
            if !responseHeadDone {
                forwardResponseHead(&buffer)
                guard buffer.readableBytes > 0 else { return }
            }
            let (forwardable, reachedLimit) = frames.take(&buffer, eventLimit: limit)
            if forwardable.readableBytes > 0 { client.writeAndFlush(forwardable, promise: nil) }
            if reachedLimit { reset() }
        case .delay(let delay):
            let copy = buffer
            client.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(Int64(delay.components.seconds) * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000)) {
                self.client.writeAndFlush(copy, promise: nil)
            }
        default:
            client.writeAndFlush(buffer, promise: nil)
        }
    }

    /// Forwards bytes up to the end of the response head; leaves the rest in `buffer`.
    private func forwardResponseHead(_ buffer: inout ByteBuffer) {
        responseHead.writeImmutableBuffer(buffer)
        let view = Array(responseHead.readableBytesView)
        guard let end = Self.find([13, 10, 13, 10], in: view) else {
            buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
            return
        }
        let headLength = end + 4
        if let head = responseHead.readSlice(length: headLength) { client.writeAndFlush(head, promise: nil) }
        responseHeadDone = true
        buffer = responseHead
        responseHead = ByteBuffer()
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where Array(haystack[i..<(i + needle.count)]) == needle { return i }
        return nil
    }

    private func toServer(_ buffer: ByteBuffer) {
        if let upstream { upstream.writeAndFlush(buffer, promise: nil) } else { pendingToServer.append(buffer) }
    }

    /// Cuts both sides at once, mid-stream: no WebSocket close frame, no HTTP response.
    private func reset() {
        finished = true
        for channel in [client, upstream].compactMap({ $0 }) { channel.close(promise: nil) }
    }

    func clientClosed() {
        finished = true
        upstream?.close(promise: nil)
        client.close(promise: nil)
    }

    func serverClosed() {
        if case .silentAfterResponseHead = fault, responseHeadDone { return }
        finished = true
        client.close(promise: nil)
    }
}

/// Splits server-to-client WebSocket bytes into frames and counts event frames, so a drop can be
/// placed exactly after the Nth event.
struct WebSocketFrameCounter {
    private var carry = ByteBuffer()
    private(set) var events = 0

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
