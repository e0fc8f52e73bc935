import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import NIOWebSocket
import ScanProtocol
import WSCore

/// The events WebSocket: replays a job's events after `?after=N`, streams live ones, sends
/// heartbeats while open, and closes with 1000 after the terminal event.
struct EventSocket: EventUpgrades {
    let configuration: ServiceConfiguration
    let store: any JobStore
    let metrics: ServiceMetrics
    let access: ServiceAccess
    let delivery: any EventDelivery

    /// Largest message a client may send (larger: close 1009); clients send only a small hello.
    static let maxInboundMessage = 4096
    /// Largest WebSocket frame either side sends or accepts (larger: close 1009).
    static let maxFrameSize = 1 << 14

    /// Decides an upgrade from the request head alone: the events route, the token, a known job with
    /// room for one more subscriber. A refused upgrade goes on as a plain HTTP request, which the
    /// events route answers with the right status and JSON error.
    ///
    /// Hummingbird's router-based upgrade (`router.ws`) is not used: in hummingbird-websocket 2.8.1
    /// its `WebSocketHandlerReference` keeps the request context, which holds the reference again,
    /// so every upgraded socket leaked ~7 KB (found by LeakSanitizer; RELIABILITY.md, Sanitizers).
    func shouldUpgrade(_ head: HTTPRequest) async -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        guard head.method == .get, let path = head.path,
            admitsUpgrade(uri: path, authorization: head.headerFields[.authorization])
        else { return .dontUpgrade }
        let uri = URI(path)
        // The gate judged from what this instance knows; a shared store is asked for certain here.
        if let text = Routes.eventsJobId(inPath: uri.path), let id = UUID(uuidString: String(text)),
            (try? await store.checkedSubscriberRoom(id, limit: configuration.maxSubscribersPerJob)) != .available
        {
            return .dontUpgrade
        }
        if Routes.isMultiplexedEvents(uri.path) {
            let multiplexed = MultiplexedEventSocket(configuration: configuration, store: store, metrics: metrics, delivery: delivery)
            return .upgrade([:]) { inbound, outbound, _ in
                try await multiplexed.serve(uri: uri, inbound: inbound, outbound: outbound)
            }
        }
        return .upgrade([:]) { inbound, outbound, _ in
            try await serve(uri: uri, inbound: inbound, outbound: outbound)
        }
    }

    private func admits(jobId: UUID?) -> Bool {
        guard let jobId else { return false }
        return store.subscriberRoom(jobId, limit: configuration.maxSubscribersPerJob) == .available
    }

    /// Whether an upgrade request for `uri` would be accepted (route, token, job, subscriber room),
    /// judged from the request head before the upgrade starts; see `FirstRequestGate`. The route is
    /// matched as the router matches it (`Routes.match`), and the token is checked for the endpoint's
    /// access like every HTTP request (`ServiceAccess`), so no spelling of a path upgrades without it.
    /// The multiplexed route admits any authorized upgrade whose `jobs=` (if any) parses; its jobs are
    /// judged one by one once it is open.
    func admitsUpgrade(uri: String, authorization: String?) -> Bool {
        let uri = URI(uri)
        guard let match = Routes.match(path: uri.path), match.endpoint == .events || match.endpoint == .multiplexedEvents,
            access.admits(
                match.endpoint.access, authorization: authorization, queryToken: uri.queryParameters.get(ProtocolNames.accessTokenQuery),
                ticket: uri.queryParameters.get(ProtocolNames.ticketQuery))
        else { return false }
        if match.endpoint == .multiplexedEvents {
            return uri.queryParameters.get(ProtocolNames.jobsQuery).map { JobCursor.list(fromQuery: $0) != nil } ?? true
        }
        return admits(jobId: match.jobId.flatMap { UUID(uuidString: String($0)) })
    }

    private func serve(uri: URI, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        guard let text = Routes.eventsJobId(inPath: uri.path), let id = UUID(uuidString: String(text)),
            store.subscriberRoom(id, limit: configuration.maxSubscribersPerJob) != .unknownJob
        else {
            try await outbound.close(.policyViolation, reason: "unknown job")
            return
        }
        let after = max(0, uri.queryParameters.get(ProtocolNames.afterQuery).flatMap { Int($0) } ?? 0)
        guard let subscription = try await store.subscribe(id, after: after, limit: configuration.maxSubscribersPerJob) else {
            try await outbound.close(.policyViolation, reason: "too many subscribers")
            return
        }
        metrics.subscriberOpened(.websocket)
        defer {
            subscription.end()
            metrics.subscriberClosed(.websocket)
        }
        // Events are already buffered in the subscription; writing starts at the hello (or after the grace period).
        try await EventWriteLoop.socket(
            subscription, to: EventSocketWriter(encoder: Encoder(subscription: subscription), outbound: outbound, metrics: metrics),
            grace: configuration.streamGrace, heartbeatInterval: configuration.heartbeatInterval, delivery: delivery
        ) { ready in
            try await drain(inbound, outbound: outbound, ready: ready)
        }
    }

    /// The one-job socket's frames: each event's JSON as it is (the terminal one completes the
    /// socket: close 1000), a heartbeat with the job's latest seq.
    struct Encoder: EventFrameEncoder {
        let subscription: JobSubscription

        func encode(_ frame: OutgoingFrame) throws -> EncodedEventFrame {
            switch frame {
            case .event(let text, _, let terminal):
                return EncodedEventFrame(text: text, kind: .event, endsStream: terminal)
            case .heartbeat:
                let message = ServerMessage.heartbeat(Heartbeat(latestSeq: subscription.latestSeq, timestamp: Date()))
                return EncodedEventFrame(text: String(decoding: try WireCoding.encode(message), as: UTF8.self), kind: .heartbeat)
            }
        }
    }

    /// Reads what the client sends so pings, pongs and close frames are processed. Clients send
    /// only `hello`: a message over `maxInboundMessage` closes that socket with 1009 (swift-websocket
    /// checks the size of fragmented messages only), a binary frame or a text frame that is not a
    /// client message with 1003; nothing else is affected.
    private func drain(_ inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, ready: AsyncStream<Void>.Continuation) async throws {
        for try await message in inbound.messages(maxSize: Self.maxInboundMessage) {
            let size: Int
            switch message {
            case .text(let text): size = text.utf8.count
            case .binary(let buffer): size = buffer.readableBytes
            }
            guard size <= Self.maxInboundMessage else {
                try await outbound.close(.messageTooLarge, reason: "message over \(Self.maxInboundMessage) bytes")
                return
            }
            guard case .text(let text) = message, (try? WireCoding.decode(ClientMessage.self, from: Data(text.utf8))) != nil else {
                try await outbound.close(.unacceptableData, reason: "not a bookscan client message")
                return
            }
            ready.yield()
        }
    }
}
