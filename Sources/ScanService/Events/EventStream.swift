import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ScanProtocol
import ServiceLifecycle

/// The events route as Server-Sent Events (`Accept: text/event-stream`): the same replay rules as
/// the WebSocket (`after=` or `Last-Event-ID`), one SSE message per event, a comment heartbeat at the
/// heartbeat interval, and the end of the response after the terminal event. Chunked HTTP/1.1 (TLS
/// when the service has it); it passes proxies that refuse or break WebSocket upgrades.
struct EventStream: Sendable {
    let configuration: ServiceConfiguration
    let store: any JobStore
    let metrics: ServiceMetrics
    let delivery: any EventDelivery

    /// The streamed response for job `id`, resuming after `after`; throws the route's JSON errors
    /// (404 unknown job, 429 too many subscribers) before any byte of the stream. The subscription is
    /// made when the body is written and ends with it: a response whose body is never written (a
    /// connection gone before its head went out) holds no subscriber slot.
    func response(for id: UUID, after: Int) async throws -> Response {
        try await checkRoom(id)
        let configuration = self.configuration, metrics = self.metrics, store = self.store, delivery = self.delivery
        return Response(
            status: .ok, headers: Self.headers,
            body: ResponseBody { writer in
                // The room was checked; a race lost to other subscribers since then ends the stream at
                // once, without a terminal event, and the client's retry gets the 429.
                guard let subscription = try await store.subscribe(id, after: after, limit: configuration.maxSubscribersPerJob) else {
                    try await writer.finish(nil)
                    return
                }
                metrics.subscriberOpened(.sse)
                defer {
                    subscription.end()
                    metrics.subscriberClosed(.sse)
                }
                try await writer.write(ByteBuffer(string: EventStreamWire.opening))
                let stream = EventStreamWriter(encoder: Encoder(subscription: subscription), body: writer, metrics: metrics)
                // A service shutting down ends its open streams (cleanly, without a terminal event):
                // clients resume after their last seq, from this instance once it is back or from
                // another one. Without this, a graceful shutdown waits for every job to finish.
                try await withGracefulShutdownHandler {
                    try await EventWriteLoop.stream(
                        subscription, to: stream, heartbeatInterval: configuration.heartbeatInterval, delivery: delivery)
                } onGracefulShutdown: {
                    subscription.continuation.finish()
                }
            })
    }

    /// What `HEAD` gets: the status and headers the stream would have, after the same checks, and no
    /// stream (no subscription, no slot taken).
    func head(for id: UUID) async throws -> Response {
        try await checkRoom(id)
        return Response(status: .ok, headers: Self.headers)
    }

    /// The stream's headers. `X-Accel-Buffering: no` asks nginx-style proxies not to buffer; a proxy
    /// that buffers anyway is what the client detects.
    static var headers: HTTPFields {
        var headers: HTTPFields = [.contentType: EventStreamWire.mediaType, .cacheControl: "no-cache"]
        if let noBuffering = HTTPField.Name("X-Accel-Buffering") { headers[noBuffering] = "no" }
        return headers
    }

    /// Throws what the events route answers instead of a stream: 404 for an unknown job, 429 when
    /// its subscriber slots are taken.
    private func checkRoom(_ id: UUID) async throws {
        switch try await store.checkedSubscriberRoom(id, limit: configuration.maxSubscribersPerJob) {
        case .unknownJob: throw ServiceError.notFound(id.uuidString.lowercased())
        case .full(let subscribers):
            throw ServiceError(.tooManyRequests, .tooManySubscribers, "job has \(subscribers) open event streams", retryable: true)
        case .available: break
        }
    }

    /// The stream's frames: one SSE message per event (the terminal one ends the response), a
    /// comment heartbeat with the job's latest seq.
    struct Encoder: EventFrameEncoder {
        let subscription: JobSubscription

        func encode(_ frame: OutgoingFrame) -> EncodedEventFrame {
            switch frame {
            case .event(let text, let seq, let terminal):
                EncodedEventFrame(text: EventStreamWire.message(seq: seq, frameJSON: text), kind: .event, endsStream: terminal)
            case .heartbeat:
                EncodedEventFrame(text: EventStreamWire.heartbeat(latestSeq: subscription.latestSeq, at: Date()), kind: .heartbeat)
            }
        }
    }
}
