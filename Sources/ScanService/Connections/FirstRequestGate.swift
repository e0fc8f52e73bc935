import NIOCore
import NIOHTTP1

/// Watches a connection's request heads. Closes it when the first head has not arrived within the
/// header deadline, however slowly it trickles in (slowloris); and turns a WebSocket upgrade that
/// the events route would refuse (any method but GET, a wrong token, an unknown job …) into a plain
/// request, so the HTTP route answers it with its real status and JSON error (404, 401, 429 …)
/// instead of the empty 400 of a refused upgrade. Only a connection's first request may upgrade, so
/// on a kept-alive connection the `Upgrade` header of every later request is dropped too. Sits right
/// after the HTTP decoder; leaves once it passes an upgrade on (the pipeline turns into WebSocket
/// frames). Later requests fall under the idle timeout, not the header deadline.
final class FirstRequestGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let headerTimeout: TimeAmount
    private let admitsUpgrade: @Sendable (_ method: HTTPMethod, _ uri: String, _ authorization: String?) -> Bool
    private var deadline: Scheduled<Void>?
    private var passed = false

    init(headerTimeout: TimeAmount, admitsUpgrade: @escaping @Sendable (_ method: HTTPMethod, _ uri: String, _ authorization: String?) -> Bool) {
        self.headerTimeout = headerTimeout
        self.admitsUpgrade = admitsUpgrade
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: headerTimeout) {
            let (gate, context) = loopBound.value
            gate.deadline = nil
            guard !gate.passed else { return }
            // The upgrade handler downstream still waits for a head: tell it the input ended, so it
            // gives up quietly instead of reporting a removed handler as an error.
            context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
            context.close(promise: nil)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        let first = !passed
        passed = true
        deadline?.cancel()
        deadline = nil
        guard Self.isWebSocketUpgrade(head) else {
            context.fireChannelRead(wrapInboundOut(.head(head)))
            return
        }
        if first, admitsUpgrade(head.method, head.uri, head.headers.first(name: "authorization")) {
            context.fireChannelRead(wrapInboundOut(.head(head)))
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            return
        }
        head.headers.remove(name: "upgrade")
        context.fireChannelRead(wrapInboundOut(.head(head)))
    }

    static func isWebSocketUpgrade(_ head: HTTPRequestHead) -> Bool {
        head.headers[canonicalForm: "upgrade"].contains { $0.lowercased() == "websocket" }
    }
}
