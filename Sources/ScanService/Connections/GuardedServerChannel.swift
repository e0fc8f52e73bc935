import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import ScanProtocol

/// The service's HTTP/1.1 + WebSocket child channel with its abuse limits around Hummingbird's:
/// a per-client and a total connection cap (over either: 503 + Retry-After, then closed), a deadline
/// for the first request head, upgrades the events route would refuse answered over plain HTTP,
/// `100 Continue` only once a route reads the body, a floor under the pace of request bodies, and
/// bodies nobody reads cut off instead of drained. See README "Service limits".
struct GuardedServerChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value

    let base: HTTP1WebSocketUpgradeChannel
    let connections: ClientConnectionCounter?
    let headerTimeout: TimeAmount
    let retryAfter: Int
    /// Bytes a closing connection may still read and discard (see `LingeringCloseHandler`).
    let maxDiscard: Int
    let admitsUpgrade: @Sendable (_ method: HTTPMethod, _ uri: String, _ authorization: String?) -> Bool

    /// The server builder `Application` takes: Hummingbird's WebSocket upgrade channel, guarded.
    static func builder(
        configuration: ServiceConfiguration, events: any EventUpgrades
    ) -> HTTPServerBuilder {
        let webSocket = WebSocketServerConfiguration(maxFrameSize: EventSocket.maxFrameSize, autoPing: .enabled(timePeriod: configuration.pingInterval))
        let floor = configuration.bodyRateFloor
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [ExpectContinueHandler(), UnreadBodyCloser()] + (floor.map { [BodyRateGuard(floor: $0)] } ?? []),
            idleTimeout: TimeAmount(configuration.idleTimeout))
        let connections =
            configuration.maxConnectionsPerClient == nil && configuration.maxConnections == nil
            ? nil : ClientConnectionCounter(perClientLimit: configuration.maxConnectionsPerClient, totalLimit: configuration.maxConnections)
        return HTTPServerBuilder { responder in
            GuardedServerChannel(
                base: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: .init(http1: http1, ws: webSocket)) { head, _, _ in
                    await events.shouldUpgrade(head)
                },
                connections: connections, headerTimeout: TimeAmount(configuration.headerTimeout), retryAfter: configuration.retryAfterSeconds,
                maxDiscard: max(1 << 20, configuration.maxBytes),
                admitsUpgrade: { method, uri, authorization in
                    method == .GET && events.admitsUpgrade(uri: uri, authorization: authorization)
                })
        }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            var refusal: ClientConnectionCounter.Refusal?
            if let connections {
                let address = channel.remoteAddress?.ipAddress
                refusal = connections.admit(address)
                if refusal == nil { channel.closeFuture.whenComplete { _ in connections.release(address) } }
            }
            let encoder = try pipeline.handler(type: HTTPResponseEncoder.self)
            let refusalBytes = refusal.map { Self.refusalResponse($0, retryAfter: retryAfter) }
            try pipeline.addHandler(LingeringCloseHandler(refusal: refusalBytes, maxDiscard: maxDiscard), position: .before(encoder))
            let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try pipeline.addHandler(FirstRequestGate(headerTimeout: headerTimeout, admitsUpgrade: admitsUpgrade), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }

    /// The whole HTTP response a connection over the cap gets, written before anything is parsed.
    static func refusalResponse(_ refusal: ClientConnectionCounter.Refusal, retryAfter: Int) -> ByteBuffer {
        let message =
            switch refusal {
            case .clientFull(let limit): "this address already has \(limit) open connections, the limit; retry later"
            case .serviceFull(let limit): "the service already has \(limit) open connections, its limit; retry later"
            }
        let error = ErrorResponse(error: ErrorBody(code: .tooManyConnections, message: message, retryable: true))
        let body = (try? WireCoding.encode(error)) ?? Data()
        let head =
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
            + "Retry-After: \(retryAfter)\r\nConnection: close\r\n\r\n"
        var buffer = ByteBuffer(string: head)
        buffer.writeBytes(body)
        return buffer
    }
}
