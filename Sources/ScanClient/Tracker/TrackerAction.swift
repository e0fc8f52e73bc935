package import ScanProtocol

extension TrackerStateMachine {
    /// What the driver must do.
    package enum Action: Sendable, Equatable {
        case openSocket(connection: Int, after: Int)
        /// Open the event stream (SSE) of the job, replaying after `after`.
        case openStream(connection: Int, after: Int)
        /// Close the socket or event stream with this connection number.
        case closeSocket(connection: Int)
        case schedule(TrackerTimer, after: Duration)
        case cancel(TrackerTimer)
        case poll
        /// An accepted event, with the fraction to display (never lower than before).
        case deliver(JobEvent, path: EventPath, displayFraction: Double)
        case finish(TrackerEnding)
    }
}

extension ServerMessage {
    /// Whether this is the server's periodic heartbeat.
    var isHeartbeat: Bool { if case .heartbeat = self { true } else { false } }
}

extension [TrackerStateMachine.Action] {
    /// Whether this batch reports the ending (always as its last action).
    var endsRun: Bool {
        if case .finish = last { true } else { false }
    }
}
