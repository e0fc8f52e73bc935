import ScanProtocol

/// What a status poll returned.
public enum PollOutcome: Sendable, Equatable {
    case snapshot(JobSnapshot)
    /// An HTTP error status with the protocol error body when there was one.
    case httpError(status: Int, ErrorBody?)
    /// No response (connection refused, reset, timed out).
    case transportError(String)
}
