import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with `100 Continue` only when the route asks for the body
/// (`ScanRequestContext.continueBody()`, the user outbound event `Continue`), after the token, the
/// declared size and the upload budget were checked: a request refused before that (401, 413, 503 …)
/// gets its final answer and no 100, so the client never sends the body (and `UnreadBodyCloser`
/// closes the connection). Without the 100 a client such as curl would wait its expect timeout.
///
/// Requests on one connection are answered in order, so the request a route serves is the oldest one
/// not answered yet: a `Continue` applies to it alone, and only while its body has not started.
final class ExpectContinueHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// User outbound event: the route serving the oldest unanswered request reads its body now.
    struct Continue: Sendable {}

    /// Requests received (heads) and answered (final response heads) on this connection.
    private var received = 0
    private var answered = 0
    /// Numbers of the requests that wait for a 100 (asked for one; no body byte and no answer yet).
    private var waiting: Set<Int> = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if head.headerFields[.expect]?.lowercased() == "100-continue" { waiting.insert(received) }
            received += 1
        case .body, .end:
            // The client sent its body without waiting (or there is none): no 100 for it any more.
            waiting.remove(received - 1)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .head(let head) = unwrapOutboundIn(data), head.status.kind != .informational {
            waiting.remove(answered)
            answered += 1
        }
        context.write(data, promise: promise)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is Continue else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        if waiting.remove(answered) != nil {
            context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
        }
        promise?.succeed(())
    }
}
