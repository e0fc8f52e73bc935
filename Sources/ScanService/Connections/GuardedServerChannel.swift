import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import ScanProtocol

/// The service's HTTP/1.1 + WebSocket child channel with its abuse limits around Hummingbird's:
/// a per-client connection cap (over it: 503 + Retry-After, then closed), a deadline for the first
/// request head, upgrades the events route would refuse answered over plain HTTP, and bodies nobody
/// reads cut off instead of drained. See README "Service limits".
struct GuardedServerChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value

    let base: HTTP1WebSocketUpgradeChannel
    let connections: ClientConnectionCounter?
    let headerTimeout: TimeAmount
    let refusal: ByteBuffer
    /// Bytes a closing connection may still read and discard (see `LingeringCloseHandler`).
    let maxDiscard: Int
    let admitsUpgrade: @Sendable (_ uri: String, _ authorization: String?) -> Bool

    /// The server builder `Application` takes: Hummingbird's WebSocket upgrade channel, guarded.
    static func builder(
        configuration: ServiceConfiguration, events: EventSocket
    ) -> HTTPServerBuilder {
        let webSocket = WebSocketServerConfiguration(maxFrameSize: EventSocket.maxFrameSize, autoPing: .enabled(timePeriod: configuration.pingInterval))
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ExpectContinueHandler(maxBodyBytes: configuration.maxBytes), UnreadBodyCloser()],
            idleTimeout: TimeAmount(configuration.idleTimeout))
        let connections = configuration.maxConnectionsPerClient.map(ClientConnectionCounter.init(limit:))
        let refusal = refusalResponse(limit: configuration.maxConnectionsPerClient ?? 0, retryAfter: configuration.retryAfterSeconds)
        return HTTPServerBuilder { responder in
            GuardedServerChannel(
                base: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: .init(http1: http1, ws: webSocket)) { head, _, _ in
                    await events.shouldUpgrade(head)
                },
                connections: connections, headerTimeout: TimeAmount(configuration.headerTimeout), refusal: refusal,
                maxDiscard: max(1 << 20, configuration.maxBytes),
                admitsUpgrade: { uri, authorization in events.admitsUpgrade(uri: uri, authorization: authorization) })
        }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            var admitted = true
            if let connections, let address = channel.remoteAddress?.ipAddress {
                admitted = connections.admit(address)
                if admitted { channel.closeFuture.whenComplete { _ in connections.release(address) } }
            }
            let encoder = try pipeline.handler(type: HTTPResponseEncoder.self)
            try pipeline.addHandler(LingeringCloseHandler(refusal: admitted ? nil : refusal, maxDiscard: maxDiscard), position: .before(encoder))
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(FirstRequestGate(headerTimeout: headerTimeout, admitsUpgrade: admitsUpgrade), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }

    /// The whole HTTP response a connection over the cap gets, written before anything is parsed.
    static func refusalResponse(limit: Int, retryAfter: Int) -> ByteBuffer {
        let error = ErrorResponse(
            error: ErrorBody(
                code: .tooManyConnections, message: "this address already has \(limit) open connections, the limit; retry later",
                retryable: true))
        let body = (try? WireCoding.encode(error)) ?? Data()
        let head =
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
            + "Retry-After: \(retryAfter)\r\nConnection: close\r\n\r\n"
        var buffer = ByteBuffer(string: head)
        buffer.writeBytes(body)
        return buffer
    }
}
