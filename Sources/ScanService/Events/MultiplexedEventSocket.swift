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

    func serve(uri: URI, inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        let initial = uri.queryParameters.get(ProtocolNames.jobsQuery).flatMap { JobCursor.list(fromQuery: $0) } ?? []
        if configuration.faults.silentSockets {
            // Injected fault: an open socket that carries nothing and answers no ping.
            try await Task.sleep(for: .seconds(3600))
            return
        }
        let set = SubscriptionSet(
            store: store, maxSubscribersPerJob: configuration.maxSubscribersPerJob, maxJobs: configuration.maxJobsPerEventSocket)
        metrics.subscriberOpened(.websocket)
        defer {
            set.close()
            metrics.subscriberClosed(.websocket)
        }
        // As on a one-job socket, frames are written once the client says hello (or after the grace period).
        let (ready, readySignal) = AsyncStream<Void>.makeStream()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await read(inbound, outbound: outbound, set: set, ready: readySignal) }
            group.addTask {
                await set.subscribe(initial)
                try await Task.sleep(for: configuration.streamGrace)
                readySignal.yield()
                while !Task.isCancelled {
                    try await Task.sleep(for: configuration.heartbeatInterval)
                    set.tick()
                }
            }
            group.addTask {
                var gate = ready.makeAsyncIterator()
                _ = await gate.next()
                try await write(set, outbound: outbound)
            }
            _ = try await group.next()
            group.cancelAll()
        }
    }

    /// Writes the set's frames in order; the injected "socket dropped" fault counts events over all jobs.
    private func write(_ set: SubscriptionSet, outbound: WebSocketOutboundWriter) async throws {
        var eventsSent = 0
        for await frame in set.frames {
            switch frame {
            case .subscribed(let text, _), .refused(let text, _):
                try await outbound.write(.text(text))
            case .event(let text, _, _, _):
                try await outbound.write(.text(text))
                metrics.eventSent(.websocket)
                eventsSent += 1
                if let dropAfter = configuration.faults.dropSocketAfterEvents, eventsSent >= dropAfter {
                    try await outbound.close(.unexpectedServerError, reason: "injected fault: socket dropped")
                    return
                }
            case .heartbeat:
                let jobs = set.latestSeqs
                let heartbeat = Heartbeat(latestSeq: jobs.map(\.latestSeq).max() ?? 0, timestamp: Date(), jobs: jobs)
                try await outbound.write(.text(SubscriptionSet.text(.heartbeat(heartbeat))))
                metrics.heartbeatSent(.websocket)
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
