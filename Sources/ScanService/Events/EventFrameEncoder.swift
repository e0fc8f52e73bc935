/// One transport's wire form of a feed's frames (the small per-transport part of `EventWriteLoop`):
/// the text of each frame, what it counts as, and whether the stream ends with it.
protocol EventFrameEncoder: Sendable {
    associatedtype Frame: EventFeedFrame
    /// `frame` as the connection sends it.
    mutating func encode(_ frame: Frame) throws -> EncodedEventFrame
}

/// One frame in its wire form: a WebSocket text message or a chunk of an event stream.
struct EncodedEventFrame: Sendable {
    /// What a frame counts as in the service's metrics.
    enum Kind: Sendable {
        /// A job event (`bookscan_events_sent_total`).
        case event
        /// A heartbeat (`bookscan_heartbeats_sent_total`).
        case heartbeat
        /// A `subscribed` or `refused` notice of a multiplexed connection (not counted).
        case notice
    }

    let text: String
    let kind: Kind
    /// The connection's stream is complete after this frame (its job's terminal event; every job of
    /// a multiplexed event stream ended).
    var endsStream = false

    /// Counts the frame as sent over `transport`.
    func count(in metrics: ServiceMetrics, _ transport: ServiceMetrics.Transport) {
        switch kind {
        case .event: metrics.eventSent(transport)
        case .heartbeat: metrics.heartbeatSent(transport)
        case .notice: break
        }
    }
}
