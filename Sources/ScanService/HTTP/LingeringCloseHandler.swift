import NIOCore

/// Closes a connection without losing the response just written to it, and without reading the
/// rest of a body nobody wants. After `LingeringCloseHandler.Start` (or at once, with a canned
/// refusal, for a connection over its client's cap), it flushes, half-closes (FIN after the
/// response), and throws away what the client still sends — nothing of it reaches the HTTP decoder —
/// until the client closes, `maxDiscard` bytes or `lingerTime` have passed; then it closes.
/// Lingering is what lets a client that is still sending read the response before the reset a
/// plain close would cause; the bounds are what keep a 1 GiB body from being drained.
final class LingeringCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// User outbound event: the response is written; close the connection the lingering way.
    struct Start: Sendable {}

    private enum State {
        case open
        case refusing(ByteBuffer)
        case lingering(discarded: Int)
        case closed
    }

    private var state: State
    private let maxDiscard: Int
    private let lingerTime: TimeAmount
    private var timer: Scheduled<Void>?

    /// - Parameter refusal: when set, the connection is refused: these bytes (a complete HTTP
    ///   response) answer whatever the client sends first, and nothing reaches the HTTP handlers.
    init(refusal: ByteBuffer? = nil, maxDiscard: Int = 1 << 20, lingerTime: TimeAmount = .seconds(2)) {
        self.state = refusal.map { .refusing($0) } ?? .open
        self.maxDiscard = maxDiscard
        self.lingerTime = lingerTime
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // A refused connection that never sends anything is closed after the linger time too.
        if case .refusing = state { scheduleClose(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .open:
            context.fireChannelRead(data)
        case .refusing(let response):
            state = .lingering(discarded: unwrapInboundIn(data).readableBytes)
            context.write(wrapOutboundOut(response), promise: nil)
            // The upgrade handler downstream still waits for a request head: the end of input lets
            // it give up quietly now (its close request is held below until the linger ends).
            context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            linger(context)
        case .lingering(let discarded):
            let total = discarded + unwrapInboundIn(data).readableBytes
            state = .lingering(discarded: total)
            if total > maxDiscard { finish(context) }
        case .closed:
            break
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .lingering = state, let event = event as? ChannelEvent, event == .inputClosed {
            finish(context)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is Start else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        if case .open = state {
            state = .lingering(discarded: 0)
            linger(context)
        }
        promise?.succeed(())
    }

    /// While lingering, a full close asked for by the handlers above waits for the linger's end.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if case .lingering = state, mode == .all {
            if let promise { context.channel.closeFuture.cascade(to: promise) }
            return
        }
        context.close(mode: mode, promise: promise)
    }

    /// Flushes what is written, then sends FIN once it is out; the timer bounds the rest.
    private func linger(_ context: ChannelHandlerContext) {
        context.flush()
        context.close(mode: .output, promise: nil)
        scheduleClose(context)
    }

    private func scheduleClose(_ context: ChannelHandlerContext) {
        timer?.cancel()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: lingerTime) {
            let (handler, context) = loopBound.value
            handler.timer = nil
            handler.finish(context)
        }
    }

    private func finish(_ context: ChannelHandlerContext) {
        if case .closed = state { return }
        if case .refusing = state {  // refused and silent: let the upgrade handler give up quietly
            context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        }
        state = .closed
        timer?.cancel()
        timer = nil
        context.close(promise: nil)
    }
}
