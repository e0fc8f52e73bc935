import Foundation
import ImagePreparation
import ScanProtocol

/// How one image's run ended, as the CLI's exit code and the analytics log see it.
public enum RunOutcome: String, Codable, Sendable, CaseIterable {
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

/// Everything about one image's run: what the CLI prints, `--json` emits and analytics record.
public struct ScanReport: Codable, Sendable {
    public var image: String
    public var jobId: UUID?
    public var outcome: RunOutcome
    public var state: JobState?
    /// Which ProgressStrategy carried the run; nil when nothing was tracked.
    public var strategy: StrategyName?
    /// The streaming transport the carrying path fell back from: `websocket` for `sse` and for
    /// polling after a WebSocket failure, `sse` for polling after the event stream failed too.
    /// The fallback reason, status and phase are that transport's first failure.
    public var fallbackFrom: StreamTransport?
    public var fallbackReason: SocketFailureReason?
    public var fallbackStatus: Int?
    public var fallbackPhase: FallbackPhase?
    public var prepareMilliseconds: Double?
    public var uploadSeconds: Double?
    public var firstEventSeconds: Double?
    public var totalSeconds: Double
    public var bytesUp: Int?
    public var uploadAttempts: Int
    public var resubmissions: Int
    public var reconnects: Int
    public var socketFailures: Int
    /// Event-stream (SSE) failures.
    public var streamFailures: Int
    public var polls: Int
    public var eventsByPath: [String: Int]
    public var spineCount: Int?
    public var error: String?
    /// The preparation error, for its exit code (not encoded).
    public var inputError: PrepareError?
    public var result: ScanResult?

    private enum CodingKeys: String, CodingKey {
        case image, jobId, outcome, state, strategy, fallbackFrom, fallbackReason, fallbackStatus, fallbackPhase, prepareMilliseconds, uploadSeconds
        case firstEventSeconds, totalSeconds, bytesUp, uploadAttempts, resubmissions, reconnects, socketFailures, streamFailures, polls, eventsByPath
        case spineCount, error, result
    }

    public init(image: String, outcome: RunOutcome, totalSeconds: Double) {
        self.image = image
        self.outcome = outcome
        self.totalSeconds = totalSeconds
        self.uploadAttempts = 0
        self.resubmissions = 0
        self.reconnects = 0
        self.socketFailures = 0
        self.streamFailures = 0
        self.polls = 0
        self.eventsByPath = [:]
    }

    /// Fills the tracking fields from a tracked run.
    mutating func record(_ run: TrackedRun) {
        let earlier = strategy
        // A run nothing carried keeps what an earlier submission of the same job recorded.
        strategy = run.strategy?.name ?? earlier
        if run.strategy == .websocket, socketFailures > 0 || (earlier != nil && earlier != .websocket) {
            // A resubmission's socket carried the end, but the first submission's socket had failed
            // (or polling had carried it).
            strategy = .websocketReconnected
        }
        switch run.strategy {
        case .pollingFallback(let reason, let status, let phase, let from):
            recordFallback(from: from, TransportFailure(reason: reason, status: status, phase: phase))
        case .sse(let failure?):
            recordFallback(from: .websocket, failure)
        default:
            break
        }
        uploadSeconds = run.uploadSeconds
        firstEventSeconds = run.firstEventSeconds
        reconnects += run.metrics.reconnects
        socketFailures += run.metrics.socketFailures
        streamFailures += run.metrics.streamFailures
        polls += run.metrics.pollsMade
        for (path, count) in run.metrics.eventsByPath { eventsByPath[path.rawValue, default: 0] += count }
    }

    private mutating func recordFallback(from transport: StreamTransport, _ failure: TransportFailure) {
        fallbackFrom = transport
        fallbackReason = failure.reason
        fallbackStatus = failure.status
        fallbackPhase = failure.phase
    }
}
