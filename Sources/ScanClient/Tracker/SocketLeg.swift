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

    /// What a frame on the current connection was to the socket (`frameArrived`).
    enum Frame: Equatable, Sendable {
        /// The connection's first frame: the socket carries the job from now on.
        case first
        /// A later frame.
        case next
        /// A frame from a suspect socket: it was slow, not dead; its verdict timer is cancelled.
        case cleared
    }

    /// How an attempt's end is taken (`closed`).
    enum Closed: Equatable, Sendable {
        /// The upgrade raced ahead of the upload: not a failure. The socket reopens now
        /// (`reopenNow`, the upload was accepted) or once the upload is accepted.
        case raceLost(reopenNow: Bool)
        /// A failure for this reason and status (the first failure is settled already).
        case failed(SocketFailureReason, status: Int?)
    }

    /// What a hedged poll's answer makes of the carrying socket (`hedgedPollAnswered`).
    enum HedgeAnswer: Equatable, Sendable {
        /// Nothing to do: no hedge was out, or the socket sent a frame meanwhile, or there is no margin.
        case settled
        /// News the socket never delivered: dead unless a frame comes within `margin` (its verdict timer).
        case suspect(connection: Int, margin: Duration)
        /// Nothing new and still no frame: the late heartbeat is asked about again `margin` later.
        case askAgain(connection: Int, margin: Duration)
    }

    private(set) var state = State.idle
    /// Whether any socket of the run has carried a frame (then a reconnect has a deadline of its own
    /// instead of the first-frame deadline and the give-up).
    private(set) var everCarried = false
    private(set) var consecutiveFailures = 0
    private(set) var raceRetry: RaceRetry
    private(set) var firstFailure = FirstFailure.none
    private var backoff: ReconnectBackoff

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
}

// MARK: - inputs (each moves the socket on; `TrackerRun` turns what they return into actions)

extension SocketLeg {
    /// Attempt `connection` begins.
    mutating func connect(connection: Int) {
        state = .connecting(connection)
    }

    /// Attempt `connection` opened. Returns false when that is not the attempt in flight.
    mutating func opened(connection: Int) -> Bool {
        guard case .connecting(connection) = state else { return false }
        state = .open(connection)
        return true
    }

    /// A frame arrived on `connection`; nil when that is not the open socket.
    mutating func frameArrived(connection: Int) -> Frame? {
        switch state {
        case .open(connection):
            state = .carrying(connection, .none)
            everCarried = true
            consecutiveFailures = 0
            return .first
        case .carrying(connection, .none):
            return .next
        case .carrying(connection, .hedging):
            state = .carrying(connection, .hedging(sawFrame: true))
            return .next
        case .carrying(connection, .suspect):
            // Behind, but alive: it was slow, not dead.
            state = .carrying(connection, .none)
            return .cleared
        case .idle, .connecting, .open, .carrying, .waitingToReconnect, .abandoned:
            return nil
        }
    }

    /// Attempt `connection` ended with `end`; nil when that is not the current attempt.
    /// `startedBeforeAccept`: it began before the upload was accepted; `uploadAccepted`: the upload is accepted now.
    mutating func closed(connection: Int, end: SocketEnd, startedBeforeAccept: Bool, uploadAccepted: Bool) -> Closed? {
        let wasOpen: Bool
        switch state {
        case .connecting(connection): wasOpen = false
        case .open(connection), .carrying(connection, _): wasOpen = true
        case .idle, .connecting, .open, .carrying, .waitingToReconnect, .abandoned: return nil
        }
        if case .refused(let status) = end, status == nil || status == 404 || status == 426, startedBeforeAccept, raceRetry == .available {
            // The upgrade raced ahead of the upload (the job did not exist yet): not a failure.
            // Reopen once the job exists; this free retry is used at most once per run.
            state = .idle
            raceRetry = uploadAccepted ? .unavailable : .reopenWhenAccepted
            return .raceLost(reopenNow: uploadAccepted)
        }
        let reason = end.failureReason(wasOpen: wasOpen)
        var status: Int?
        if case .refused(let code) = end { status = code }
        settleFirstFailure(endOf: connection, wasOpen: wasOpen, reason: reason, status: status)
        return .failed(reason, status: status)
    }

    /// The current attempt failed (`failure`, recorded unless an earlier one is): the socket waits to
    /// reconnect, and the delay is returned; or, with `giveUp` (too many failures), it is abandoned and nil returned.
    mutating func failed(_ failure: TransportFailure, giveUp: Bool) -> Duration? {
        record(failure)
        if giveUp {
            state = .abandoned
            return nil
        }
        state = .waitingToReconnect
        defer { consecutiveFailures += 1 }
        return backoff.delay(attempt: consecutiveFailures)
    }

    /// The socket is not tried again in this run (its reconnect timer is the caller's to cancel).
    mutating func abandon() {
        state = .abandoned
    }

    /// The upload was accepted. Returns true when an upgrade that raced it waits to reopen now.
    mutating func uploadAccepted() -> Bool {
        guard raceRetry == .reopenWhenAccepted else { return false }
        raceRetry = .unavailable
        return true
    }

    /// The first-frame deadline passed (`phase`: when, for the failure it records). Returns false when
    /// a socket of the run carried frames (the deadline no longer applies).
    mutating func firstFrameDeadlinePassed(phase: FallbackPhase) -> Bool {
        guard !everCarried else { return false }
        let failure = TransportFailure(reason: openConnection == nil ? .connectTimeout : .silent, phase: phase)
        switch (firstFailure, state) {
        case (.none, .connecting(let connection)): firstFailure = .awaitingAnswer(failure, connection: connection)
        case (.none, _): firstFailure = .recorded(failure)
        case (.awaitingAnswer, _), (.recorded, _): break
        }
        return true
    }

    /// The give-up deadline passed with no frame ever: the socket is abandoned. Returns why, and the
    /// attempt that was live (to close); nil when a socket of the run carried frames.
    mutating func giveUpDeadlinePassed(phase: FallbackPhase) -> (reason: SocketFailureReason, live: Int?)? {
        guard !everCarried else { return nil }
        let reason: SocketFailureReason = openConnection == nil ? .connectTimeout : .silent
        let live = connection
        record(TransportFailure(reason: reason, phase: phase))
        state = .abandoned
        return (reason, live)
    }

    /// The heartbeat of `connection` is late. Returns true when a hedged poll goes out for it (the
    /// socket carries the job, unhedged); the caller checks first that one may.
    mutating func heartbeatLate(connection: Int) -> Bool {
        guard case .carrying(connection, .none) = state else { return false }
        state = .carrying(connection, .hedging(sawFrame: false))
        return true
    }

    /// A poll answered (`showedNews`: a seq newer than the last delivered); `margin` is how long a
    /// suspect socket has, nil when the heartbeat interval is unknown.
    mutating func hedgedPollAnswered(showedNews: Bool, margin: Duration?) -> HedgeAnswer {
        guard case .carrying(let connection, .hedging(let sawFrame)) = state else { return .settled }
        state = .carrying(connection, .none)
        guard !sawFrame, let margin else { return .settled }
        if showedNews {
            // The hedged poll found news the socket never delivered (and the socket sent nothing
            // while the poll was out): the news is shown now, and the socket is dead unless a frame
            // arrives within the margin.
            state = .carrying(connection, .suspect)
            return .suspect(connection: connection, margin: margin)
        }
        // Nothing new yet and still no frame: ask again a margin later (the server may simply have
        // had no news); the silence rule stays the backstop.
        return .askAgain(connection: connection, margin: margin)
    }

    /// The hedged poll answered with an error (or not at all): the carrying socket is no longer hedged.
    mutating func hedgedPollFailed() {
        if case .carrying(let c, .hedging) = state { state = .carrying(c, .none) }
    }

    /// The verdict timer of suspect `connection` fired. Returns true when it is still suspect: it is
    /// dead (unhedged, for the caller to close).
    mutating func hedgeVerdictDue(connection: Int) -> Bool {
        guard case .carrying(connection, .suspect) = state else { return false }
        state = .carrying(connection, .none)
        return true
    }

    /// Records `failure` unless an earlier one is.
    private mutating func record(_ failure: TransportFailure) {
        if case .none = firstFailure { firstFailure = .recorded(failure) }
    }

    /// Attempt `connection` ended (`wasOpen`: after it opened) for `reason`: if the first failure
    /// awaited this attempt's answer, the answer replaces it; any other attempt's end settles it.
    private mutating func settleFirstFailure(endOf connection: Int, wasOpen: Bool, reason: SocketFailureReason, status: Int?) {
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
}
