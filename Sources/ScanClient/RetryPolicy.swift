import BookscanBase
import Foundation

/// When to retry an idempotent request: on connection errors and 429/502/503/504, after the
/// scheduled delays (0, 1, 3, 5 s by default) plus up to `jitter`, or later if `Retry-After` says so.
package struct RetryPolicy: Sendable, Equatable {
    package var delays: [Duration]
    package var jitter: Duration
    package static let retryableStatuses: Set<Int> = [429, 502, 503, 504]

    package init(delays: [Duration] = [.zero, .seconds(1), .seconds(3), .seconds(5)], jitter: Duration = .milliseconds(250)) {
        self.delays = delays
        self.jitter = jitter
    }

    /// The wait before the next attempt, or nil when the failure is final.
    package func delay(afterAttempt attempt: Int, status: Int?, retryAfter: String?) -> Duration? {
        if let status, !Self.retryableStatuses.contains(status) { return nil }
        guard attempt < delays.count else { return nil }
        let jitterMilliseconds = Int64.random(in: 0...max(0, jitter.wholeMilliseconds))
        var wait = delays[attempt] + .milliseconds(jitterMilliseconds)
        if let retryAfter, let seconds = Double(retryAfter.trimmingCharacters(in: .whitespaces)), seconds >= 0 {
            wait = max(wait, .milliseconds(Int64(min(seconds, 120) * 1000)))
        }
        return wait
    }
}
