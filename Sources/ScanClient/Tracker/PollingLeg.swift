/// The polling side of a tracked run: the ladder's last step, and the one status request at a time
/// that polling and the hedged polls (a late heartbeat, the lag probe) share. Owned by `TrackerStateMachine`.
struct PollingLeg: Sendable {
    /// Whether polling follows the job.
    enum State: Equatable, Sendable {
        case off
        /// Polling every interval (it carries the job, or runs beside a transport that has not yet).
        case following
    }

    /// What the run does for polling after one of its inputs.
    enum Action: Equatable, Sendable {
        /// Nothing: polling already was where the input would take it.
        case none
        /// Schedule the next tick; `pollNow`: send a poll now too (none was out).
        case tick(pollNow: Bool)
        /// Cancel the next tick: polling no longer follows the job.
        case stopTicking
    }

    private(set) var state = State.off
    /// Whether a status request is out, polling's own or a hedged one: there is never more than one.
    private(set) var requestOut = false

    var isFollowing: Bool { state == .following }

    /// Whether a hedged poll may go out: polling does not follow the job (its own polls tell) and no request is out.
    var mayHedge: Bool { !isFollowing && !requestOut }
}

// MARK: - inputs

extension PollingLeg {
    /// Polling takes over following the job: a poll now and the next tick (nothing if it already follows).
    mutating func follow() -> Action {
        guard !isFollowing else { return .none }
        state = .following
        return pollSent()
    }

    /// The tick timer fired: a poll now and the next tick, while polling follows the job.
    mutating func tickFired() -> Action {
        guard isFollowing else { return .none }
        return pollSent()
    }

    /// A streaming transport carries the job (again): polling stops following it.
    mutating func transportCarries() -> Action {
        guard isFollowing else { return .none }
        state = .off
        return .stopTicking
    }

    /// A hedged poll goes out (the caller checked `mayHedge`).
    mutating func hedgedPollSent() {
        requestOut = true
    }

    /// The request out was answered (or failed).
    mutating func pollAnswered() {
        requestOut = false
    }

    /// Polls now unless a request is still out, and schedules the next tick.
    private mutating func pollSent() -> Action {
        defer { requestOut = true }
        return .tick(pollNow: !requestOut)
    }
}
