/// What an events socket is fed: encoded event frames in `seq` order, and heartbeat ticks.
enum OutgoingFrame: Sendable {
    /// A JSON text frame; `terminal` marks the job's last event, after which the socket closes.
    case event(String, seq: Int, terminal: Bool)
    case heartbeat
}
