package import RunModel
package import ScanProtocol

/// How a tracked run ended.
package enum TrackerEnding: Sendable, Equatable {
    /// The job reached a terminal state (succeeded, failed or canceled); the event is the terminal one.
    case terminal(JobEvent)
    /// `--timeout` passed before the job finished; it may still be running on the server.
    case timedOut
    /// The user interrupted (Ctrl-C); the job may still be running on the server.
    case interrupted
    /// The server no longer knows the job (404 on status).
    case jobLost
    /// The server refused our credentials (401/403).
    case unauthorized(status: Int)
    /// `--strategy websocket` and the WebSocket could not carry the job.
    case socketUnavailable(SocketFailureReason)
}
