import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import NIOWebSocket
import ScanProtocol
import WSCore

/// The multiplexed events WebSocket (`/v1/events?jobs=ID,ID:N,…`): one socket follows many jobs.
/// Jobs in the query are subscribed at once; `subscribe` / `unsubscribe` messages add and remove
/// jobs later. Each job is replayed after its own cursor, announced by `subscribed` (or answered
/// `refused`), and its events carry their own seq; one heartbeat per interval lists every job's
/// latest seq. The socket stays open when jobs end; the client closes it.
struct MultiplexedEventSocket: Sendable {
    let configuration: ServiceConfiguration
    let store: any JobStore
    let metrics: ServiceMetrics
    let delivery: any EventDelivery

    func serve(uri: URI, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let initial = uri.queryParameters.get(ProtocolNames.jobsQuery).flatMap { JobCursor.list(fromQuery: $0) } ?? []
        let set = SubscriptionSet(
            store: store, maxSubscribersPerJob: configuration.maxSubscribersPerJob, maxJobs: configuration.maxJobsPerEventSocket)
        metrics.subscriberOpened(.websocket)
        defer {
            set.close()
            metrics.subscriberClosed(.websocket)
        }
        // As on a one-job socket, frames are written once the client says hello (or after the grace period).
        try await EventWriteLoop.socket(
            set, to: EventSocketWriter(encoder: Encoder(set: set), outbound: outbound, metrics: metrics), grace: configuration.streamGrace,
            heartbeatInterval: configuration.heartbeatInterval, delivery: delivery, opening: { await set.subscribe(initial) }
        ) { ready in
            try await read(inbound, outbound: outbound, set: set, ready: ready)
        }
    }

    /// The multiplexed socket's frames: `subscribed`, `refused` and events as they are, a heartbeat
    /// listing every job's latest seq; the socket stays open when jobs end.
    struct Encoder: EventFrameEncoder {
        let set: SubscriptionSet

        func encode(_ frame: SubscriptionSet.Frame) -> EncodedEventFrame {
            switch frame {
            case .subscribed(let text, _), .refused(let text, _): EncodedEventFrame(text: text, kind: .notice)
            case .event(let text, _, _, _): EncodedEventFrame(text: text, kind: .event)
            case .heartbeat: EncodedEventFrame(text: SubscriptionSet.text(.heartbeat(set.heartbeat())), kind: .heartbeat)
            }
        }
    }

    /// Reads the client's messages: `hello` starts the writing, `subscribe` / `unsubscribe` change the
    /// set. A message over the size limit closes with 1009, anything that is not a client message with 1003.
    private func read(_ inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, set: SubscriptionSet, ready: AsyncStream<Void>.Continuation)
        async throws
    {
        for try await message in inbound.messages(maxSize: Self.maxInboundMessage) {
            guard case .text(let text) = message else {
                try await outbound.close(.unacceptableData, reason: "not a bookscan client message")
                return
            }
            guard text.utf8.count <= Self.maxInboundMessage else {
                try await outbound.close(.messageTooLarge, reason: "message over \(Self.maxInboundMessage) bytes")
                return
            }
            switch try? WireCoding.decode(ClientMessage.self, from: Data(text.utf8)) {
            case .hello: ready.yield()
            case .subscribe(let request): await set.subscribe(request.jobs)
            case .unsubscribe(let request): set.unsubscribe(request.jobs)
            case nil:
                try await outbound.close(.unacceptableData, reason: "not a bookscan client message")
                return
            }
        }
    }

    /// Largest message a client may send on this socket: a `subscribe` of 256 jobs fits (~64 bytes each).
    static let maxInboundMessage = 1 << 15
}
