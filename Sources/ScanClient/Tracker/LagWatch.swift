import Foundation

/// Whether the transport carrying a job keeps up with the server. A middlebox can pass a stream so
/// slowly (a few hundred bytes a second) that it stays alive, frames and heartbeats still arriving,
/// while it falls minutes behind. Pure value logic, owned by a `TrackerStateMachine`'s running phase,
/// which turns what it finds into hedged polls and verdicts (`TrackerRun.swift`).
///
/// - Age: what a transport delivers carries the server's time (an event's timestamp, a WebSocket
///   heartbeat's); its age is its arrival time minus that, less the smallest such difference seen in
///   the run (the two clocks' offset plus the least transit time), so skewed clocks do not matter.
///   What is no older than the lag bound is fresh: the transport kept up.
/// - Debt: a status poll that shows a seq the watched connection has not delivered makes it owe
///   that seq. It pays by delivering it (or a later one); one that has not paid within the lag bound
///   is behind: `lagging` when it still sent something meanwhile, `silent` when it sent nothing.
struct LagWatch: Sendable, Equatable {
    /// What a connection that owed a seq for the lag bound is.
    enum Verdict: Equatable {
        /// It delivered what it owed (or owes nothing).
        case keepingUp
        /// Alive, still sending, but behind: a transport that trickles.
        case lagging
        /// Nothing at all since it came to owe: dead, not slow.
        case silent
    }

    /// The connection carrying the job (WebSocket or event stream); nil when none is watched.
    private(set) var connection: Int?
    /// The highest seq the watched connection delivered (news or not), or the seq it resumed after.
    private(set) var reached = 0
    /// A seq a status poll showed that the watched connection had not delivered.
    private(set) var owed: Int?
    /// Whether the watched connection sent anything since it came to owe `owed`.
    private(set) var heardSinceOwed = false
    /// The smallest arrival time minus server time seen in the run, in seconds (nil before any).
    private(set) var clockOffset: Double?
    /// Whether the probe was brought forward by a heartbeat naming a seq not delivered yet (and has
    /// not fired nor been pushed back by fresh news since): later such heartbeats leave it where it is.
    var probeBroughtForward = false

    /// Starts watching `connection`, which now carries the job; it owes nothing up to `reached` (what
    /// was contiguous when it took over: it resumed after at most that).
    mutating func watch(connection: Int, reached: Int) {
        self.connection = connection
        self.reached = reached
        owed = nil
        heardSinceOwed = false
        probeBroughtForward = false
    }

    /// Stops watching (the connection no longer carries the job). The clock offset is kept: it is the run's.
    mutating func stop() {
        connection = nil
        owed = nil
        heardSinceOwed = false
        probeBroughtForward = false
    }

    /// The watched connection sent something, with events up to `seq` (nil: none). Returns true when
    /// that pays what it owed.
    mutating func heard(reaching seq: Int?) -> Bool {
        if owed != nil { heardSinceOwed = true }
        if let seq { reached = max(reached, seq) }
        guard let owed, reached >= owed else { return false }
        self.owed = nil
        heardSinceOwed = false
        return true
    }

    /// A status poll showed the job at `seq`. Returns true when the watched connection newly owes it
    /// (the lag bound starts now); a debt already running keeps its start and grows to the newer seq.
    mutating func pollShowed(_ seq: Int) -> Bool {
        guard connection != nil, seq > reached else { return false }
        defer { owed = max(owed ?? 0, seq) }
        return owed == nil
    }

    /// Ages beyond this (in seconds) are reported as this.
    static let longestAge: Double = 86_400

    /// The verdict once the lag bound has passed since the connection came to owe.
    var verdict: Verdict {
        guard let owed, reached < owed else { return .keepingUp }
        return heardSinceOwed ? .lagging : .silent
    }

    /// The age of something the server stamped `timestamp` that arrived at `receivedAt`, measured
    /// from the best arrival seen (which this sample may improve); nil when the arrival time is unknown.
    mutating func age(of timestamp: Date, receivedAt: Date?) -> Duration? {
        guard let receivedAt else { return nil }
        let offset = receivedAt.timeIntervalSince(timestamp)
        guard offset.isFinite else { return nil }
        let best = min(clockOffset ?? offset, offset)
        clockOffset = best
        // Capped at a day: a wild timestamp is simply very old, never a trap converting it.
        return .milliseconds(Int64((min(offset - best, Self.longestAge) * 1000).rounded()))
    }
}
