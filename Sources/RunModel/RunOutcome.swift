/// How one image's run ended, as the CLI's exit code and the analytics log see it.
package enum RunOutcome: String, Codable, Sendable, CaseIterable {
    case succeeded
    /// The service scanned it and the job failed (or was canceled).
    case failed
    case canceled
    /// `--timeout` passed; the job may still be running (re-attach with `bookscan watch`).
    case timedOut = "timed_out"
    /// Ctrl-C; the job may still be running.
    case stopped
    /// The input file could not be prepared (missing, not a JPEG, corrupt…).
    case inputError = "input_error"
    /// The service refused the image (413/415/422).
    case rejected
    /// The service could not be reached.
    case unreachable
    /// Credentials were refused.
    case unauthorized
    /// The job vanished on the server (restart, expiry) and could not be resubmitted.
    case jobLost = "job_lost"
    /// `--strategy websocket` and the socket could not carry the job.
    case socketUnavailable = "socket_unavailable"
}
