/// Counters of one tracked run, for the result and the analytics log.
package struct TrackerMetrics: Sendable, Equatable {
    package var socketAttempts = 0
    package var socketFailures = 0
    package var reconnects = 0
    package var pollsMade = 0
    package var pollsSucceeded = 0
    package var pollErrors = 0
    /// Polls sent because a heartbeat came late or the carrying transport brought no fresh news
    /// (included in `pollsMade`).
    package var hedgedPolls = 0
    /// Event streams (SSE) opened, and those that failed.
    package var streamAttempts = 0
    package var streamFailures = 0
    package var eventsByPath: [EventPath: Int] = [:]

    package init() {}
}
