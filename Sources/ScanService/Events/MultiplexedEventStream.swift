import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ScanProtocol
import ServiceLifecycle

/// The multiplexed events route as Server-Sent Events (`GET /v1/events?jobs=ID,ID:N,…` with
/// `Accept: text/event-stream`): the jobs of the query, fixed for the response, each announced by a
/// `subscribed` (or `refused`) message and replayed after its own cursor; job events carry `id:
/// ID:seq`; a `heartbeat` message each interval lists every job's latest seq. The response ends when
/// every job has ended (terminal event or refusal). To change the set, a client opens a new stream
/// with each job's last cursor (the WebSocket form adds and removes jobs on the open socket).
struct MultiplexedEventStream: Sendable {
    let configuration: ServiceConfiguration
    let store: any JobStore
    let metrics: ServiceMetrics

    /// The stream of `cursors`' jobs; throws the route's JSON errors (400 no jobs, 429 too many)
    /// before any byte of it. The subscriptions are made when the body is written and end with it.
    func response(for cursors: [JobCursor]) throws -> Response {
        try check(cursors)
        let configuration = self.configuration, store = self.store, metrics = self.metrics
        return Response(
            status: .ok, headers: EventStream.headers,
            body: ResponseBody { writer in
                let set = SubscriptionSet(
                    store: store, maxSubscribersPerJob: configuration.maxSubscribersPerJob, maxJobs: configuration.maxJobsPerEventSocket)
                metrics.subscriberOpened(.sse)
                defer {
                    set.close()
                    metrics.subscriberClosed(.sse)
                }
                try await withGracefulShutdownHandler {
                    try await Self.stream(cursors, set: set, to: &writer, configuration: configuration, metrics: metrics)
                } onGracefulShutdown: {
                    set.close()
                }
                try await writer.finish(nil)
            })
    }

    /// What `HEAD` gets: the status and headers the stream would have, after the same checks, and no stream.
    func head(for cursors: [JobCursor]) throws -> Response {
        try check(cursors)
        return Response(status: .ok, headers: EventStream.headers)
    }

    /// Throws what the route answers instead of a stream: the injected refusal, 400 without jobs,
    /// 429 for more jobs than one stream follows.
    private func check(_ cursors: [JobCursor]) throws {
        if let status = configuration.faults.refuseUpgradeStatus {
            throw ServiceError(
                HTTPResponse.Status(code: status), .internal, "injected fault: events refused with \(status)", retryable: true,
                headers: status == 503 ? [.retryAfter: "1"] : [:])
        }
        guard !cursors.isEmpty else {
            throw ServiceError(.badRequest, .badRequest, "an event stream needs its jobs: ?\(ProtocolNames.jobsQuery)=ID,ID:N,…")
        }
        guard cursors.count <= configuration.maxJobsPerEventSocket else {
            throw ServiceError(
                .tooManyRequests, .tooManyJobs, "\(cursors.count) jobs; one stream follows at most \(configuration.maxJobsPerEventSocket)",
                retryable: false)
        }
    }

    private static func stream(
        _ cursors: [JobCursor], set: SubscriptionSet, to writer: inout any ResponseBodyWriter, configuration: ServiceConfiguration,
        metrics: ServiceMetrics
    ) async throws
    {
        try await writer.write(ByteBuffer(string: EventStreamWire.opening))
        await set.subscribe(cursors)
        if configuration.faults.silentSockets {
            for await _ in set.frames {}
            return
        }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: configuration.heartbeatInterval)
                if Task.isCancelled { return }
                set.tick()
            }
        }
        defer { ticker.cancel() }
        var open = Set(cursors.map(\.jobId))
        var eventsSent = 0
        for await frame in set.frames {
            switch frame {
            case .event(let text, let jobId, let seq, let terminal):
                let message = EventStreamWire.multiplexedMessage(
                    type: EventStreamWire.eventType, cursor: JobCursor(jobId: jobId, after: seq), frameJSON: text)
                try await writer.write(ByteBuffer(string: message))
                metrics.eventSent(.sse)
                eventsSent += 1
                if let dropAfter = configuration.faults.dropSocketAfterEvents, eventsSent >= dropAfter { throw EventStream.InjectedStreamDrop() }
                if terminal { open.remove(jobId) }
            case .subscribed(let text, _):
                try await writer.write(
                    ByteBuffer(string: EventStreamWire.multiplexedMessage(type: EventStreamWire.subscribedType, cursor: nil, frameJSON: text)))
            case .refused(let text, let jobId):
                try await writer.write(
                    ByteBuffer(string: EventStreamWire.multiplexedMessage(type: EventStreamWire.refusedType, cursor: nil, frameJSON: text)))
                open.remove(jobId)
            case .heartbeat:
                let jobs = set.latestSeqs
                let heartbeat = Heartbeat(latestSeq: jobs.map(\.latestSeq).max() ?? 0, timestamp: Date(), jobs: jobs)
                try await writer.write(
                    ByteBuffer(
                        string: EventStreamWire.multiplexedMessage(
                            type: EventStreamWire.heartbeatType, cursor: nil, frameJSON: SubscriptionSet.text(.heartbeat(heartbeat)))))
                metrics.heartbeatSent(.sse)
            }
            if open.isEmpty { return }
        }
    }
}
