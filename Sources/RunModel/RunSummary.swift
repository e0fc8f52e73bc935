import Foundation

/// How one job run went over the network: its outcome, the ProgressStrategy that carried it, the first
/// fallback, the counters and the timings. The CLI's `ScanReport` and the analytics log's `AnalyticsRecord`
/// both embed it, and both write its fields flat at their own top level (the `--json` report and the
/// record schema name them the same way).
package struct RunSummary: Codable, Sendable, Equatable {
    package var outcome: RunOutcome
    /// Which ProgressStrategy carried the run; nil when nothing was tracked.
    package var strategy: StrategyName?
    /// The streaming transport the carrying path fell back from: `websocket` for `sse` and for
    /// polling after a WebSocket failure, `sse` for polling after the event stream failed too.
    /// The fallback reason, status and phase are that transport's first failure.
    package var fallbackFrom: StreamTransport?
    package var fallbackReason: SocketFailureReason?
    package var fallbackStatus: Int?
    package var fallbackPhase: FallbackPhase?
    package var reconnects: Int
    package var socketFailures: Int
    package var polls: Int
    /// Events shown, by the path that delivered them (`websocket`, `sse`, `poll`, …).
    package var eventsByPath: [String: Int]
    package var uploadSeconds: Double?
    package var firstEventSeconds: Double?
    package var totalSeconds: Double
    package var bytesUp: Int?

    /// A run that has not been tracked yet: no strategy, no fallback, every counter 0.
    package init(outcome: RunOutcome, totalSeconds: Double) {
        self.outcome = outcome
        self.totalSeconds = totalSeconds
        reconnects = 0
        socketFailures = 0
        polls = 0
        eventsByPath = [:]
    }

    /// Records a transport's first failure as the run's fallback.
    package mutating func recordFallback(from transport: StreamTransport, _ failure: TransportFailure) {
        fallbackFrom = transport
        fallbackReason = failure.reason
        fallbackStatus = failure.status
        fallbackPhase = failure.phase
    }
}
