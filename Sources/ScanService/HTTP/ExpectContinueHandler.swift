import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers `Expect: 100-continue` with `100 Continue` at once, so clients that send it (curl does
/// for bodies over 1 KiB) do not wait their expect timeout before sending the photo. A body declared
/// over `maxBodyBytes` gets no 100: the route's 413 is the answer, and the client never sends it.
final class ExpectContinueHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let maxBodyBytes: Int

    init(maxBodyBytes: Int = .max) {
        self.maxBodyBytes = maxBodyBytes
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(var head) = unwrapInboundIn(data), head.headerFields[.expect]?.lowercased() == "100-continue" {
            head.headerFields[.expect] = nil
            let declared = head.headerFields[.contentLength].flatMap(Int.init) ?? 0
            if declared <= maxBodyBytes {
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
            }
            context.fireChannelRead(wrapInboundOut(.head(head)))
            return
        }
        context.fireChannelRead(data)
    }
}
