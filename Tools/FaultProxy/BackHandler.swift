import NIOCore

/// The server side of one proxied connection.
final class BackHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let relay: FaultRelay

    init(relay: FaultRelay) {
        self.relay = relay
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        relay.fromServer(&buffer)
    }

    func channelInactive(context: ChannelHandlerContext) {
        relay.serverClosed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
