import Foundation
import NIOCore
import NIOHTTP1
import ScanProtocol

/// Watches a connection's request heads. Closes it when the first head has not arrived within the
/// header deadline, however slowly it trickles in (slowloris); and turns a WebSocket upgrade that
/// the events route would refuse (any method but GET, a wrong token, an unknown job …) into a plain
/// request, so the HTTP route answers it with its real status and JSON error (404, 401, 429 …)
/// instead of the empty 400 of a refused upgrade. Only a connection's first request may upgrade, so
/// on a kept-alive connection the `Upgrade` header of every later request is dropped too. Sits right
/// after the HTTP decoder; leaves once it passes an upgrade on (the pipeline turns into WebSocket
/// frames). Later requests fall under the idle timeout, not the header deadline. A first head the decoder
/// cannot parse (a bad `Content-Length`, a bare LF, header folding, too many headers …) is answered 400 with the
/// usual JSON error and the connection closed at once, as a later request's already is: the upgrade handler
/// that waits for the first head would otherwise answer nothing and hold the connection to the deadline.
final class FirstRequestGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

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

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !passed, error is HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        passed = true
        deadline?.cancel()
        deadline = nil
        let body = (try? WireCoding.encode(ErrorResponse(error: ErrorBody(code: .badRequest, message: "malformed HTTP request", retryable: false))))
            .map { [UInt8]($0) } ?? Array("{}".utf8)
        var headers = HTTPHeaders([("Content-Type", "application/json"), ("Content-Length", "\(body.count)"), ("Connection", "close")])
        headers.add(name: "Cache-Control", value: "no-store")
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
        // The upgrade handler still waits for a head: the input ended.
        context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
    }

    static func isWebSocketUpgrade(_ head: HTTPRequestHead) -> Bool {
        head.headers[canonicalForm: "upgrade"].contains { $0.lowercased() == "websocket" }
    }
}
