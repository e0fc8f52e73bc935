import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Ends the connection after a response that was sent before its request body was read to the end
/// (413 mid-stream, or 401/404/415 … that never looked at the body): the response goes out with
/// `Connection: close` and `LingeringCloseHandler` closes after it, instead of Hummingbird draining
/// whatever the client still sends — up to gigabytes — to reach the next request.
final class UnreadBodyCloser: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private var requestComplete = true
    private var closeAfterResponse = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: requestComplete = false
        case .end: requestComplete = true
        case .body: break
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status.kind != .informational:
            if !requestComplete || head.headerFields[.connection]?.lowercased() == "close" {
                closeAfterResponse = true
                head.headerFields[.connection] = "close"
                context.write(wrapOutboundOut(.head(head)), promise: promise)
                return
            }
            context.write(data, promise: promise)
        case .end where closeAfterResponse:
            closeAfterResponse = false
            context.write(data, promise: promise)
            context.triggerUserOutboundEvent(LingeringCloseHandler.Start(), promise: nil)
        default:
            context.write(data, promise: promise)
        }
    }
}
