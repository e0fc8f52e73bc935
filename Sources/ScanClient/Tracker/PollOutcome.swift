package import ScanProtocol

/// What a status poll returned.
package enum PollOutcome: Sendable, Equatable {
    case snapshot(JobSnapshot)
    /// An HTTP error status with the protocol error body when there was one.
    case httpError(status: Int, ErrorBody?)
    /// An HTTP error (a 503, a 429…) whose `Retry-After` asks the client to wait this long.
    case throttled(status: Int, retryAfter: Duration)
    /// No response (connection refused, reset, timed out).
    case transportError(String)
}
