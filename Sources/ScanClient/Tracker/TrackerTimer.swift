/// Timers the state machine asks the driver to run; scheduling one again replaces it.
package enum TrackerTimer: Hashable, Sendable {
    /// No frame within this long after the upload was accepted: start polling in parallel.
    case firstFrameDeadline
    /// Still no frame ever: stop trying the WebSocket for this run.
    case socketGiveUp
    /// The socket with this connection number has been silent for the silence timeout.
    case silence(connection: Int)
    /// The server's heartbeat on this connection is late (its interval plus a margin): hedge with one poll.
    case heartbeatLate(connection: Int)
    /// A hedged poll found news this socket did not deliver, and no frame came since: it is dead.
    case hedgeVerdict(connection: Int)
    /// A reconnect's upgrade has not been answered in time.
    case connectDeadline(connection: Int)
    case reconnect
    /// The event stream opened as this connection has delivered no byte yet: a proxy buffers it.
    case streamFirstByte(connection: Int)
    /// Open the event stream again after a failure.
    case streamReconnect
    /// The transport carrying the job as this connection brought no fresh news for the lag probe
    /// interval: a hedged poll checks that it keeps up.
    case lagProbe(connection: Int)
    /// A status poll showed a seq this connection had not delivered, the lag bound ago: has it since?
    case lagVerdict(connection: Int)
    case poll
}

extension TrackerTimer {
    /// Timers that declare a socket dead because no frame came: after a stall of this process they
    /// get a short grace, since frames may have arrived while it was stalled.
    var waitsForFrames: Bool {
        switch self {
        case .silence, .firstFrameDeadline, .socketGiveUp, .heartbeatLate, .hedgeVerdict, .streamFirstByte, .lagProbe, .lagVerdict: true
        case .reconnect, .poll, .connectDeadline, .streamReconnect: false
        }
    }
}
