import RunModel
/// The WebSocket's side of a tracked run: the ladder's first step. Owned by `TrackerStateMachine`.
///
/// Invariants: a hedge exists only on a socket that carries the job (open, with frames), so it goes
/// with the socket; the first failure is recorded once and then only refined (a connect timeout the
/// first-frame deadline recorded is replaced by how that same attempt ends).
struct SocketLeg: Sendable {
    /// Where the current socket attempt is.
    enum State: Equatable, Sendable {
        case idle
        case connecting(Int)
        /// Open; no frame has arrived on this connection yet.
        case open(Int)
        /// Open and carrying the job (frames arrived on this connection), with what a hedged poll
        /// is finding out about it.
        case carrying(Int, Hedge)
        case waitingToReconnect
        /// Not tried again in this run.
        case abandoned
    }

    /// What a hedged poll is finding out about the carrying socket, whose heartbeat came late.
    enum Hedge: Equatable, Sendable {
        case none
        /// A hedged poll is out; `sawFrame` once the socket sent a frame meanwhile (alive, just slow).
        case hedging(sawFrame: Bool)
        /// The hedged poll showed news the socket never delivered, and it sent nothing while the poll
        /// was out: dead unless a frame arrives before the verdict timer (a stalled process may have
        /// frames queued).
        case suspect
    }

    /// The one free retry of an upgrade refused because it raced ahead of the upload (the job did
    /// not exist yet).
    enum RaceRetry: Equatable, Sendable {
        case available
        /// Spent while the upload was in flight: the socket reopens once the upload is accepted.
        case reopenWhenAccepted
        /// Spent, or never needed (the driver opens the socket only once the upload is accepted).
        case unavailable
    }

    /// The socket's first failure in the run (what the strategy names when another path took over).
    enum FirstFailure: Equatable, Sendable {
        case none
        /// A connect timeout the first-frame deadline recorded while this connection was still
        /// connecting: how that attempt ends (a refusal and its status) says more, and replaces it.
        case awaitingAnswer(TransportFailure, connection: Int)
        case recorded(TransportFailure)
    }

    var state = State.idle
    /// Whether any socket of the run has carried a frame (then a reconnect has a deadline of its own
    /// instead of the first-frame deadline and the give-up).
    var everCarried = false
    var consecutiveFailures = 0
    var raceRetry: RaceRetry
    var firstFailure = FirstFailure.none
    var backoff: ReconnectBackoff

    /// `waitsForUpload`: the driver opens the socket only once the upload is accepted (a batch's
    /// shared socket subscribes existing jobs only), so a refusal can never be the upgrade racing it.
    init(settings: TrackerSettings, seed: UInt64, waitsForUpload: Bool) {
        raceRetry = waitsForUpload ? .unavailable : .available
        backoff = ReconnectBackoff(base: settings.backoffBase, cap: settings.backoffCap, seed: seed)
    }

    /// The connection of an attempt in flight or open, if any.
    var connection: Int? {
        switch state {
        case .connecting(let c), .open(let c), .carrying(let c, _): c
        case .idle, .waitingToReconnect, .abandoned: nil
        }
    }

    /// The connection of an open socket (carrying or not), if any.
    var openConnection: Int? {
        switch state {
        case .open(let c), .carrying(let c, _): c
        case .idle, .connecting, .waitingToReconnect, .abandoned: nil
        }
    }

    /// An open socket that has carried frames on this connection.
    var isCarrying: Bool { if case .carrying = state { true } else { false } }

    /// The first failure, whether or not its attempt has answered yet.
    var failure: TransportFailure? {
        switch firstFailure {
        case .none: nil
        case .awaitingAnswer(let failure, _), .recorded(let failure): failure
        }
    }

    /// Records `failure` unless an earlier one is.
    mutating func record(_ failure: TransportFailure) {
        if case .none = firstFailure { firstFailure = .recorded(failure) }
    }

    /// Attempt `connection` ended (`wasOpen`: after it opened) for `reason`: if the first failure
    /// awaited this attempt's answer, the answer replaces it; any other attempt's end settles it.
    mutating func settleFirstFailure(endOf connection: Int, wasOpen: Bool, reason: SocketFailureReason, status: Int?) {
        guard case .awaitingAnswer(let failure, let awaited) = firstFailure else { return }
        firstFailure =
            if awaited == connection, !wasOpen {
                // The deadline only said "no answer yet"; this is the answer (e.g. a proxy's 403 that
                // arrived after 2.5 s on a slow network).
                .recorded(TransportFailure(reason: reason, status: status, phase: failure.phase))
            } else {
                .recorded(failure)
            }
    }

    /// The hedged poll answered with an error (or not at all): the carrying socket is no longer hedged.
    mutating func dropHedge() {
        if case .carrying(let c, .hedging) = state { state = .carrying(c, .none) }
    }
}
