/// The polling side of a tracked run: the ladder's last step, and the one status request at a time
/// that polling and the hedged polls (a late heartbeat, the lag probe) share. Owned by `TrackerStateMachine`.
struct PollingLeg: Sendable {
    /// Whether polling follows the job.
    enum State: Equatable, Sendable {
        case off
        /// Polling every interval (it carries the job, or runs beside a transport that has not yet).
        case following
    }

    var state = State.off
    /// Whether a status request is out, polling's own or a hedged one: there is never more than one.
    var requestOut = false

    var isFollowing: Bool { state == .following }
}
