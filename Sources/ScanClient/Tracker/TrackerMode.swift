/// Which path carries progress: decided by `--strategy`.
public enum TrackerMode: String, Sendable, CaseIterable {
    /// WebSocket first, polling in parallel when it is slow, silent or broken.
    case auto
    /// WebSocket only; the run fails if the socket cannot carry the job.
    case websocket
    /// HTTP polling only.
    case polling
}
