import BookscanBase
import NIOCore
import NIOPosix

/// The client side of one proxied connection: reads the first request head, picks the fault,
/// connects upstream on the same event loop and relays through `FaultRelay`.
final class FrontHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let upstreamPort: Int
    private let plan: FaultPlan
    private let log: FaultLog
    private var head = ByteBuffer()
    private var relay: FaultRelay?
    private var decided = false

    init(upstreamPort: Int, plan: @escaping FaultPlan, log: FaultLog) {
        self.upstreamPort = upstreamPort
        self.plan = plan
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        if let relay {
            relay.fromClient(&buffer)
            return
        }
        head.writeBuffer(&buffer)
        let bytes = Array(head.readableBytesView)
        guard !decided, let end = FaultRelay.find([13, 10, 13, 10], in: bytes) else { return }
        decided = true
        let lines = String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n")
        let requestLine = lines.first.map { $0.split(separator: " ") } ?? []
        let method = requestLine.first.map(String.init) ?? "GET"
        let path = requestLine.count > 1 ? String(requestLine[1]) : "/"
        let isUpgrade = lines.dropFirst().contains { $0.lowercased().hasPrefix("upgrade:") && $0.lowercased().contains("websocket") }
        let (_, fault) = log.next(method: method, path: path, isUpgrade: isUpgrade, plan: plan)
        switch fault {
        case .blockUpgrade where isUpgrade:
            Self.respond(status: 403, on: context.channel)
            return
        case .respond(let status):
            Self.respond(status: status, on: context.channel)
            return
        case .respondAfter(let delay, let status):
            let channel = context.channel
            context.eventLoop.scheduleTask(in: .nanoseconds(delay.wholeNanoseconds)) {
                Self.respond(status: status, on: channel)
            }
            return
        default:
            break
        }
        let relay = FaultRelay(fault: fault, isUpgrade: isUpgrade, log: log, client: context.channel)
        self.relay = relay
        var initial = head
        head = ByteBuffer()
        relay.fromClient(&initial)  // queued until the upstream connects, ahead of anything read later
        let loopBoundRelay = NIOLoopBound(relay, eventLoop: context.eventLoop)
        ClientBootstrap(group: context.eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(BackHandler(relay: loopBoundRelay.value))
                }
            }
            .connect(host: "127.0.0.1", port: upstreamPort)
            .assumeIsolated()
            .whenComplete { result in
                switch result {
                case .success(let upstream):
                    loopBoundRelay.value.attach(upstream: upstream)
                case .failure:
                    loopBoundRelay.value.clientClosed()
                }
            }
    }

    /// An injected HTTP error response, then close.
    private static func respond(status: Int, on channel: any Channel) {
        let response = "HTTP/1.1 \(status) Injected\r\nContent-Type: application/json\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        channel.writeAndFlush(ByteBuffer(string: response)).whenComplete { _ in channel.close(promise: nil) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        relay?.clientClosed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
