import NIOCore
import NIOHTTP1

/// Watches a connection until its first request head is complete. Closes it when the head has not
/// arrived within the header deadline, however slowly it trickles in (slowloris); and turns a
/// WebSocket upgrade that the events route would refuse into a plain GET, so the HTTP route answers
/// it with its real status and JSON error (404, 401, 429 …) before any upgrade instead of the empty
/// 400 of a refused upgrade. Sits right after the HTTP decoder and leaves after the first head:
/// later requests on a kept-alive connection fall under the idle timeout.
final class FirstRequestGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let headerTimeout: TimeAmount
    private let admitsUpgrade: @Sendable (_ uri: String, _ authorization: String?) -> Bool
    private var deadline: Scheduled<Void>?
    private var passed = false

    init(headerTimeout: TimeAmount, admitsUpgrade: @escaping @Sendable (_ uri: String, _ authorization: String?) -> Bool) {
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
        guard !passed, case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        passed = true
        deadline?.cancel()
        deadline = nil
        if Self.isWebSocketUpgrade(head), !admitsUpgrade(head.uri, head.headers.first(name: "authorization")) {
            head.headers.remove(name: "upgrade")
        }
        context.fireChannelRead(wrapInboundOut(.head(head)))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    static func isWebSocketUpgrade(_ head: HTTPRequestHead) -> Bool {
        head.headers[canonicalForm: "upgrade"].contains { $0.lowercased() == "websocket" }
    }
}
