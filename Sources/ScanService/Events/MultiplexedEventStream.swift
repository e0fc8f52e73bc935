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
    let delivery: any EventDelivery

    /// The stream of `cursors`' jobs; throws the route's JSON errors (400 no jobs, 429 too many)
    /// before any byte of it. The subscriptions are made when the body is written and end with it.
    func response(for cursors: [JobCursor]) throws -> Response {
        try check(cursors)
        let configuration = self.configuration, store = self.store, metrics = self.metrics, delivery = self.delivery
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
                try await writer.write(ByteBuffer(string: EventStreamWire.opening))
                let stream = EventStreamWriter(encoder: Encoder(set: set, open: Set(cursors.map(\.jobId))), body: writer, metrics: metrics)
                try await withGracefulShutdownHandler {
                    await set.subscribe(cursors)
                    try await EventWriteLoop.stream(set, to: stream, heartbeatInterval: configuration.heartbeatInterval, delivery: delivery)
                } onGracefulShutdown: {
                    set.close()
                }
            })
    }

    /// What `HEAD` gets: the status and headers the stream would have, after the same checks, and no stream.
    func head(for cursors: [JobCursor]) throws -> Response {
        try check(cursors)
        return Response(status: .ok, headers: EventStream.headers)
    }

    /// Throws what the route answers instead of a stream: 400 without jobs, 429 for more jobs than
    /// one stream follows.
    private func check(_ cursors: [JobCursor]) throws {
        guard !cursors.isEmpty else {
            throw ServiceError(.badRequest, .badRequest, "an event stream needs its jobs: ?\(ProtocolNames.jobsQuery)=ID,ID:N,…")
        }
        guard cursors.count <= configuration.maxJobsPerEventSocket else {
            throw ServiceError(
                .tooManyRequests, .tooManyJobs, "\(cursors.count) jobs; one stream follows at most \(configuration.maxJobsPerEventSocket)",
                retryable: false)
        }
    }

    /// The stream's frames, each an SSE message of its type (events with `id: ID:seq`); the response
    /// ends once every job has ended (its terminal event, or refused).
    struct Encoder: EventFrameEncoder {
        let set: SubscriptionSet
        /// The jobs not ended yet.
        var open: Set<UUID>

        mutating func encode(_ frame: SubscriptionSet.Frame) -> EncodedEventFrame {
            let encoded: EncodedEventFrame
            switch frame {
            case .event(let text, let jobId, let seq, let terminal):
                let cursor = JobCursor(jobId: jobId, after: seq)
                encoded = EncodedEventFrame(
                    text: EventStreamWire.multiplexedMessage(type: EventStreamWire.eventType, cursor: cursor, frameJSON: text), kind: .event)
                if terminal { open.remove(jobId) }
            case .subscribed(let text, _):
                encoded = EncodedEventFrame(
                    text: EventStreamWire.multiplexedMessage(type: EventStreamWire.subscribedType, cursor: nil, frameJSON: text), kind: .notice)
            case .refused(let text, let jobId):
                encoded = EncodedEventFrame(
                    text: EventStreamWire.multiplexedMessage(type: EventStreamWire.refusedType, cursor: nil, frameJSON: text), kind: .notice)
                open.remove(jobId)
            case .heartbeat:
                let heartbeat = SubscriptionSet.text(.heartbeat(set.heartbeat()))
                encoded = EncodedEventFrame(
                    text: EventStreamWire.multiplexedMessage(type: EventStreamWire.heartbeatType, cursor: nil, frameJSON: heartbeat),
                    kind: .heartbeat)
            }
            return EncodedEventFrame(text: encoded.text, kind: encoded.kind, endsStream: open.isEmpty)
        }
    }
}
