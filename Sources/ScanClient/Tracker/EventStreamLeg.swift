import RunModel
/// The event stream's (SSE) side of a tracked run: the second step of the ladder, used when the
/// WebSocket fails (`auto`) or forced (`--strategy sse`). Owned by `TrackerStateMachine`.
///
/// Invariant: the stream carries the job (polling stops, the run may be classified `sse`) only in
/// `carrying`, once it delivered an event or a heartbeat on that connection, more than its opening.
struct EventStreamLeg: Sendable {
    /// Where the current stream attempt is.
    enum State: Equatable, Sendable {
        case idle
        case connecting(Int)
        /// Open (200 and an event stream); nothing has arrived yet.
        case open(Int)
        /// Bytes arrived (the opening at least: no proxy buffers the response), no event or heartbeat yet.
        case flowing(Int)
        /// It delivered events or heartbeats: it carries the job.
        case carrying(Int)
        case waitingToReconnect
        /// Not tried again in this run (buffered, refused for good, too many failures).
        case abandoned
    }

    var state = State.idle
    var consecutiveFailures = 0
    var firstFailure: TransportFailure?
    var backoff: ReconnectBackoff

    init(settings: TrackerSettings, seed: UInt64) {
        backoff = ReconnectBackoff(base: settings.backoffBase, cap: settings.backoffCap, seed: seed ^ 0x55E_55E)
    }

    /// The connection of an attempt in flight or open, if any.
    var connection: Int? {
        switch state {
        case .connecting(let c), .open(let c), .flowing(let c), .carrying(let c): c
        case .idle, .waitingToReconnect, .abandoned: nil
        }
    }

    /// The connection of an open stream (whatever arrived on it), if any.
    var openConnection: Int? {
        switch state {
        case .open(let c), .flowing(let c), .carrying(let c): c
        case .idle, .connecting, .waitingToReconnect, .abandoned: nil
        }
    }

    /// An open stream that has delivered events or heartbeats on this connection.
    var isCarrying: Bool { if case .carrying = state { true } else { false } }

    /// Statuses that a retry of the stream cannot change within a run: the stream is given up
    /// (a server without event streams answers a plain GET of the route with 426).
    static let finalRefusals: Set<Int> = [400, 401, 403, 404, 405, 406, 410, 426, 501, 503, 505]
}
