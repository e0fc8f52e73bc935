import Foundation

/// How one job run went over the network: its outcome, the ProgressStrategy that carried it, the first
/// fallback, the counters and the timings. The CLI's `ScanReport` and the analytics log's `AnalyticsRecord`
/// both embed it, and both write its fields flat at their own top level (the `--json` report and the
/// record schema name them the same way).
public struct RunSummary: Codable, Sendable, Equatable {
    public var outcome: RunOutcome
    /// Which ProgressStrategy carried the run; nil when nothing was tracked.
    public var strategy: StrategyName?
    /// The streaming transport the carrying path fell back from: `websocket` for `sse` and for
    /// polling after a WebSocket failure, `sse` for polling after the event stream failed too.
    /// The fallback reason, status and phase are that transport's first failure.
    public var fallbackFrom: StreamTransport?
    public var fallbackReason: SocketFailureReason?
    public var fallbackStatus: Int?
    public var fallbackPhase: FallbackPhase?
    public var reconnects: Int
    public var socketFailures: Int
    public var polls: Int
    /// Events shown, by the path that delivered them (`websocket`, `sse`, `poll`, …).
    public var eventsByPath: [String: Int]
    public var uploadSeconds: Double?
    public var firstEventSeconds: Double?
    public var totalSeconds: Double
    public var bytesUp: Int?

    /// A run that has not been tracked yet: no strategy, no fallback, every counter 0.
    public init(outcome: RunOutcome, totalSeconds: Double) {
        self.outcome = outcome
        self.totalSeconds = totalSeconds
        reconnects = 0
        socketFailures = 0
        polls = 0
        eventsByPath = [:]
    }

    /// Records a transport's first failure as the run's fallback.
    public mutating func recordFallback(from transport: StreamTransport, _ failure: TransportFailure) {
        fallbackFrom = transport
        fallbackReason = failure.reason
        fallbackStatus = failure.status
        fallbackPhase = failure.phase
    }
}
