import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Enforces `BodyRateFloor` on each request body: from the request head until its end (or its
/// answer), a timer checks that the bytes received keep up with the floor. When they do not, the
/// request's body stream fails with `BodyTooSlow` (the upload route answers 408, the connection
/// closes after it) and no more of it reaches the route. The idle timeout alone cannot do this:
/// one byte every few seconds resets it forever.
final class BodyRateGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The error a request body's stream ends with when it arrives under the floor.
    struct BodyTooSlow: Error, Sendable {
        let received: Int
        let elapsed: Duration
        let floor: BodyRateFloor
    }

    private enum State {
        case idle
        case receiving(start: NIODeadline, received: Int)
        case cut
    }

    private let floor: BodyRateFloor
    private var state = State.idle
    private var timer: Scheduled<Void>?

    init(floor: BodyRateFloor) {
        self.floor = floor
    }

    func handlerRemoved(context: ChannelHandlerContext) { stop() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (unwrapInboundIn(data), state) {
        case (.head, _):
            state = .receiving(start: .now(), received: 0)
            schedule(context, after: floor.grace)
        case (.body(let chunk), .receiving(let start, let received)):
            state = .receiving(start: start, received: received + chunk.readableBytes)
        case (.body, .cut):
            return  // the request was cut off: its stream has ended
        case (.end, .cut):
            state = .idle
            return
        case (.end, _):
            stop()
        case (.body, .idle):
            break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // Answered: whatever is left of the body is no longer awaited (`UnreadBodyCloser` closes).
        if case .head(let head) = unwrapOutboundIn(data), head.status.kind != .informational, case .receiving = state { stop() }
        context.write(data, promise: promise)
    }

    private func stop() {
        timer?.cancel()
        timer = nil
        if case .receiving = state { state = .idle }
    }

    private func schedule(_ context: ChannelHandlerContext, after delay: Duration) {
        timer?.cancel()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: TimeAmount(delay)) {
            let (guardHandler, context) = loopBound.value
            guardHandler.timer = nil
            guardHandler.check(context)
        }
    }

    private func check(_ context: ChannelHandlerContext) {
        guard case .receiving(let start, let received) = state else { return }
        let elapsed = Duration.nanoseconds((NIODeadline.now() - start).nanoseconds)
        let deadline = floor.deadline(received: received)
        guard elapsed >= deadline else {
            schedule(context, after: max(deadline - elapsed, .milliseconds(1)))
            return
        }
        state = .cut
        context.fireErrorCaught(BodyTooSlow(received: received, elapsed: elapsed, floor: floor))
    }
}
