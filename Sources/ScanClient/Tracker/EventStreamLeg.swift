import RunModel
/// The event stream's (SSE) side of a tracked run: the second step of the ladder, used when the
/// WebSocket fails (`auto`) or forced (`--strategy sse`). Owned by `TrackerStateMachine`.
struct EventStreamLeg: Sendable {
    enum Phase: Equatable {
        case idle
        case connecting(Int)
        /// Open; `sawBytes` once anything (the opening, a heartbeat, an event) arrived.
        case open(Int, sawBytes: Bool)
        case waitingToReconnect
        /// Not tried again in this run (buffered, refused for good, too many failures).
        case abandoned
    }

    var phase: Phase = .idle
    /// Whether the open stream has delivered an event or a heartbeat (more than its opening): only
    /// then does it carry the job (polling stops, the run may be classified `sse`).
    var delivering = false
    var consecutiveFailures = 0
    var firstFailure: TransportFailure?
    var backoff: ReconnectBackoff

    init(settings: TrackerSettings, seed: UInt64) {
        backoff = ReconnectBackoff(base: settings.backoffBase, cap: settings.backoffCap, seed: seed ^ 0x55E_55E)
    }

    /// The connection of an attempt in flight or open, if any.
    var connection: Int? {
        switch phase {
        case .connecting(let c), .open(let c, _): c
        default: nil
        }
    }

    /// An open stream that has delivered events or heartbeats on this connection.
    var isCarrying: Bool { if case .open(_, sawBytes: true) = phase { delivering } else { false } }

    /// Statuses that a retry of the stream cannot change within a run: the stream is given up
    /// (a server without event streams answers a plain GET of the route with 426).
    static let finalRefusals: Set<Int> = [400, 401, 403, 404, 405, 406, 410, 426, 501, 503, 505]
}
