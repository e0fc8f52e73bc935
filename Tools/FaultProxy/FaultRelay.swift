import BookscanBase
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Moves bytes between the client and server channels of one connection (both on one event
/// loop), applying the connection's fault.
final class FaultRelay {
    private let fault: ConnectionFault
    private let isUpgrade: Bool
    private let log: FaultLog
    private let client: any Channel
    private var upstream: (any Channel)?
    private var pendingToServer: [ByteBuffer] = []
    private var requestBytes = 0
    private var responseHeadDone = false
    private var responseHead = ByteBuffer()
    /// The server accepted the upgrade (101): the after-upgrade faults apply.
    private var upgraded = false
    private var swallowing = false
    private var frames = WebSocketFrameCounter()
    private var finished = false
    private var toClientPipe: ShapedPipe?
    private var toServerPipe: ShapedPipe?
    /// Server bytes held by `holdAfterEvents` / `delayResponse` until their release.
    private var held: ByteBuffer?
    private var holdDone = false
    private var closeAfterRelease = false
    /// `buffer`: the response collected so far, passed on once complete.
    private var pending = ByteBuffer()

    init(fault: ConnectionFault, isUpgrade: Bool, log: FaultLog, client: any Channel) {
        self.fault = fault
        self.isUpgrade = isUpgrade
        self.log = log
        self.client = client
        let shaping: (Duration, Int?)? =
            switch fault {
            case .delay(let latency): (latency, nil)
            case .shaped(let latency, let bytesPerSecond): (latency, bytesPerSecond)
            default: nil
            }
        if let (latency, bytesPerSecond) = shaping {
            toClientPipe = ShapedPipe(eventLoop: client.eventLoop, latency: latency, bytesPerSecond: bytesPerSecond) { [client] in
                client.writeAndFlush($0, promise: nil)
            }
            toServerPipe = ShapedPipe(eventLoop: client.eventLoop, latency: latency, bytesPerSecond: bytesPerSecond) { [weak self] in
                self?.writeToServer($0)
            }
        } else if case .trickle(let bytesPerSecond) = fault {
            toClientPipe = ShapedPipe(eventLoop: client.eventLoop, latency: .zero, bytesPerSecond: bytesPerSecond) { [client] in
                client.writeAndFlush($0, promise: nil)
            }
        }
    }

    func attach(upstream: any Channel) {
        self.upstream = upstream
        for buffer in pendingToServer { upstream.writeAndFlush(buffer, promise: nil) }
        pendingToServer.removeAll()
    }

    func fromClient(_ buffer: inout ByteBuffer) {
        guard !finished, !swallowing, buffer.readableBytes > 0 else { return }
        if case .resetAfterRequestBytes(let limit) = fault {
            let allowed = max(0, limit - requestBytes)
            if buffer.readableBytes > allowed {
                if allowed > 0, let slice = buffer.readSlice(length: allowed) { toServer(slice) }
                requestBytes = limit
                reset()
                return
            }
            requestBytes += buffer.readableBytes
        }
        toServer(buffer)
    }

    func fromServer(_ buffer: inout ByteBuffer) {
        guard !finished, !swallowing else { return }
        if case .stall = fault { return }
        if case .buffer = fault {
            pending.writeBuffer(&buffer)
            if let complete = Self.completeResponseLength(Array(pending.readableBytesView)), let response = pending.readSlice(length: complete) {
                toClient(response)
                pending.discardReadBytes()
            }
            return
        }
        if var held {
            held.writeBuffer(&buffer)
            self.held = held
            return
        }
        if case .delayResponse(let delay) = fault {
            // The whole response, head included, is held once; what comes after the release passes.
            if holdDone { toClient(buffer) } else { hold(buffer, for: delay) }
            return
        }
        if !responseHeadDone {
            guard let head = takeResponseHead(&buffer) else { return }
            toClient(head)
            if case .silentAfterResponseHead = fault, upgraded {
                swallowing = true
                return
            }
            guard buffer.readableBytes > 0 else { return }
        }
        switch fault {
        case .holdAfterEvents(let limit, let delay):
            guard upgraded, !holdDone else { return toClient(buffer) }
            let (forwardable, reachedLimit) = frames.take(&buffer, eventLimit: limit)
            if forwardable.readableBytes > 0 { toClient(forwardable) }
            guard reachedLimit else { return }
            // What the counter had not split into frames yet stays in order behind the held bytes.
            hold(frames.drainCarry(), for: delay)
        case .dropAfterEvents(let limit), .resetAfterEvents(let limit), .swallowAfterEvents(let limit):
            guard upgraded else { return toClient(buffer) }
            let (forwardable, reachedLimit) = frames.take(&buffer, eventLimit: limit)
            if forwardable.readableBytes > 0 { toClient(forwardable) }
            guard reachedLimit else { return }
            switch fault {
            case .dropAfterEvents: close()
            case .resetAfterEvents: reset()
            default: swallowing = true
            }
        default:
            toClient(buffer)
        }
    }

    /// Holds server bytes (these and all that follow) for `delay`, then forwards them at once.
    private func hold(_ first: ByteBuffer, for delay: Duration) {
        held = first
        holdDone = true
        client.eventLoop.assumeIsolated().scheduleTask(in: .nanoseconds(delay.wholeNanoseconds)) { [weak self] in
            guard let self, let held = self.held else { return }
            self.held = nil
            if held.readableBytes > 0, !self.finished { self.toClient(held) }
            if self.closeAfterRelease {
                self.finished = true
                self.client.close(promise: nil)
            }
        }
    }

    /// Collects the response head; returns it once complete (the rest stays in `buffer`), noting
    /// whether the server accepted an upgrade.
    private func takeResponseHead(_ buffer: inout ByteBuffer) -> ByteBuffer? {
        responseHead.writeImmutableBuffer(buffer)
        buffer.moveReaderIndex(forwardBy: buffer.readableBytes)
        let view = Array(responseHead.readableBytesView)
        guard let end = Self.find([13, 10, 13, 10], in: view), let head = responseHead.readSlice(length: end + 4) else { return nil }
        responseHeadDone = true
        let statusLine = String(decoding: view.prefix { $0 != 13 }, as: UTF8.self).split(separator: " ")
        if isUpgrade, statusLine.count > 1, statusLine[1] == "101" {
            upgraded = true
            log.upgradeAccepted()
        }
        buffer = responseHead
        responseHead = ByteBuffer()
        return head
    }

    /// The length of the first complete HTTP response in `bytes` (head and body, by Content-Length or
    /// the last chunk of a chunked body), or nil while it is incomplete.
    static func completeResponseLength(_ bytes: [UInt8]) -> Int? {
        guard let headEnd = find([13, 10, 13, 10], in: bytes) else { return nil }
        let bodyStart = headEnd + 4
        let head = String(decoding: bytes[..<headEnd], as: UTF8.self).lowercased()
        if head.contains("transfer-encoding: chunked") {
            let body = Array(bytes[bodyStart...])
            if body.starts(with: [48, 13, 10, 13, 10]) { return bodyStart + 5 }
            return find([13, 10, 48, 13, 10, 13, 10], in: body).map { bodyStart + $0 + 7 }
        }
        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).filter { $0 != " " }) } ?? 0
        return bytes.count >= bodyStart + length ? bodyStart + length : nil
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where Array(haystack[i..<(i + needle.count)]) == needle { return i }
        return nil
    }

    private func toClient(_ buffer: ByteBuffer) {
        if let toClientPipe { toClientPipe.enqueue(buffer) } else { client.writeAndFlush(buffer, promise: nil) }
    }

    private func toServer(_ buffer: ByteBuffer) {
        if let toServerPipe { toServerPipe.enqueue(buffer) } else { writeToServer(buffer) }
    }

    private func writeToServer(_ buffer: ByteBuffer) {
        guard !finished else { return }
        if let upstream { upstream.writeAndFlush(buffer, promise: nil) } else { pendingToServer.append(buffer) }
    }

    /// Closes both sides at once, mid-stream (FIN): no WebSocket close frame, no HTTP response.
    private func close() {
        finished = true
        for channel in [client, upstream].compactMap({ $0 }) { channel.close(promise: nil) }
    }

    /// Resets both sides: SO_LINGER 0, then close, so each peer gets a TCP RST instead of a FIN.
    private func reset() {
        finished = true
        for channel in [client, upstream].compactMap({ $0 }) {
            guard let provider = channel as? any SocketOptionProvider else {
                channel.close(promise: nil)
                continue
            }
            provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    func clientClosed() {
        finished = true
        upstream?.close(promise: nil)
        client.close(promise: nil)
    }

    func serverClosed() {
        if swallowing { return }
        if pending.readableBytes > 0, !finished {
            // A buffered response that ends with the connection: all of it, now.
            toClient(pending)
            pending = ByteBuffer()
        }
        if held != nil {
            // Deliver what is held first, then close.
            closeAfterRelease = true
            return
        }
        guard let toClientPipe, !finished else {
            finished = true
            client.close(promise: nil)
            return
        }
        // A slow link still delivers what the server sent before it closed.
        toClientPipe.afterDrain { [weak self] in
            self?.finished = true
            self?.client.close(promise: nil)
        }
    }
}
