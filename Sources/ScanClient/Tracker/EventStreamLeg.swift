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

    /// What bytes that arrived on the current connection were to the stream (`received`).
    struct Arrival: Equatable, Sendable {
        /// The connection's first bytes: no proxy buffers it (its first-byte timer is cancelled).
        var firstBytes: Bool
        /// It delivered its first event or heartbeat: it carries the job from now on.
        var startedCarrying: Bool
    }

    private(set) var state = State.idle
    private(set) var consecutiveFailures = 0
    private(set) var firstFailure: TransportFailure?
    private var backoff: ReconnectBackoff

    /// `unavailable`: the server has no event stream, so the ladder skips it (the leg starts abandoned).
    init(settings: TrackerSettings, seed: UInt64, unavailable: Bool) {
        backoff = ReconnectBackoff(base: settings.backoffBase, cap: settings.backoffCap, seed: seed ^ 0x55E_55E)
        if unavailable { state = .abandoned }
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

// MARK: - inputs (each moves the stream on; `TrackerRun` turns what they return into actions)

extension EventStreamLeg {
    /// Attempt `connection` begins.
    mutating func connect(connection: Int) {
        state = .connecting(connection)
    }

    /// Attempt `connection` opened (200 and an event stream). Returns false when that is not the attempt in flight.
    mutating func opened(connection: Int) -> Bool {
        guard case .connecting(connection) = state else { return false }
        state = .open(connection)
        return true
    }

    /// Bytes arrived on `connection` (`delivers`: with events or heartbeats, more than the opening);
    /// nil when that is not the open stream.
    mutating func received(connection: Int, delivers: Bool) -> Arrival? {
        var arrival = Arrival(firstBytes: false, startedCarrying: false)
        switch state {
        case .open(connection):
            arrival.firstBytes = true
            state = .flowing(connection)
        case .flowing(connection), .carrying(connection): break
        case .idle, .connecting, .open, .flowing, .carrying, .waitingToReconnect, .abandoned: return nil
        }
        if !isCarrying, delivers {
            state = .carrying(connection)
            consecutiveFailures = 0
            arrival.startedCarrying = true
        }
        return arrival
    }

    /// The current attempt failed (`failure`, kept if it is the first): the stream waits to reconnect,
    /// and the delay is returned; or, with `giveUp` (a final failure, too many), it is abandoned and nil returned.
    mutating func failed(_ failure: TransportFailure, giveUp: Bool) -> Duration? {
        if firstFailure == nil { firstFailure = failure }
        if giveUp {
            state = .abandoned
            return nil
        }
        state = .waitingToReconnect
        defer { consecutiveFailures += 1 }
        return backoff.delay(attempt: consecutiveFailures)
    }

    /// The stream is closed (the WebSocket carries again); it may be opened again later unless
    /// abandoned. Returns the attempt that was in flight or open, for the caller to close.
    mutating func close() -> Int? {
        let live = connection
        if state != .abandoned { state = .idle }
        return live
    }
}
