/// Counters of one tracked run, for the result and the analytics log.
public struct TrackerMetrics: Sendable, Equatable {
    public var socketAttempts = 0
    public var socketFailures = 0
    public var reconnects = 0
    public var pollsMade = 0
    public var pollsSucceeded = 0
    public var pollErrors = 0
    /// Polls sent because a heartbeat came late or the carrying transport brought no fresh news
    /// (included in `pollsMade`).
    public var hedgedPolls = 0
    /// Event streams (SSE) opened, and those that failed.
    public var streamAttempts = 0
    public var streamFailures = 0
    public var eventsByPath: [EventPath: Int] = [:]

    public init() {}
}
