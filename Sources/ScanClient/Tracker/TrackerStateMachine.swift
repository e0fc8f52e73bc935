import BookscanBase
import Foundation
import RunModel
import ScanProtocol

/// The hybrid progress tracker as a pure state machine: inputs are socket and event-stream (SSE)
/// reports, poll results and timer ticks; outputs are actions for a thin async driver. In `auto` it
/// climbs down the ladder WebSocket → event stream → polling, and back up when a transport heals. Nothing here touches a socket or a
/// clock, so every transition is testable on its own.
///
/// Invariants, for every run, path mix and fault:
/// - the events of every path go through one `EventMerge`: an event is delivered (emitted) only if
///   its `seq` is higher than the last one delivered and it is not behind it, so the emitted seq is
///   strictly increasing and state, stage and fraction never go backwards (a resubmitted job's run
///   continues from what the first run showed); an older event still counts for the contiguity
///   `after=` resumes from, but is never news (not delivered, not counted);
/// - the displayed fraction never decreases;
/// - the ending is reported exactly once (so at most one terminal event is delivered), and with it
///   every socket is closed and every timer cancelled;
/// - the strategy is classified from what happened (which path was carrying the job at the end,
///   whether a socket ever carried frames), never from which path happened to deliver the end first;
/// - a transport found behind (`auto`: a poll showed news it did not deliver within `maxLag`, while it
///   kept sending) is left for the rest of the run, its failure `lagging`; what the poll showed was
///   already delivered through the same merge (`TrackerStateMachine+Lag.swift`).
package struct TrackerStateMachine: Sendable {
    // The state below is internal, not private, only so the timer transitions in
    // TrackerStateMachine+Timers.swift can reach it; nothing else in the module touches it.

    /// What happened to the socket side, for the strategy classification.
    enum SocketState: Equatable {
        case idle
        case connecting(Int)
        case open(Int, sawFrame: Bool)
        case waitingToReconnect
        case abandoned
    }

    package let mode: TrackerMode
    /// Where the `auto` ladder starts: `.sse` when adaptive memory knows the WebSocket fails here.
    package let ladderStart: StreamTransport
    package let settings: TrackerSettings
    package internal(set) var metrics = TrackerMetrics()
    var socket: SocketState = .idle
    var nextConnection = 1
    var uploadAccepted = false
    /// Sockets numbered below this began before the upload was accepted.
    var firstConnectionAfterAccept = Int.max
    var raceRetryUsed = false
    var pendingReopenAfterAccept = false
    var consecutiveFailures = 0
    var everSawFrame = false
    var polling = false
    var pollInFlight = false
    /// What has been seen and shown, from every path.
    package internal(set) var merge: EventMerge
    /// The open connection a hedged poll is testing (a heartbeat came late).
    var hedgeFor: Int?
    /// Whether that socket sent a frame while the hedged poll was out (then it is alive, just slow).
    var hedgeSawFrame = false
    /// The open connection a hedged poll found behind (news it did not deliver): dead unless a
    /// frame arrives before the verdict timer (a stalled process may have frames queued).
    var suspect: Int?
    /// Whether the socket was carrying the job (open, with frames) when the run ended.
    var socketCarriedEnd = false
    /// Whether polling was following the job when the run ended.
    var pollingAtEnd = false
    var firstFailure: (reason: SocketFailureReason, status: Int?, phase: FallbackPhase)?
    /// The connection still connecting when the first-frame deadline recorded `firstFailure` as a
    /// connect timeout: how that attempt ends (a refusal and its status) says more, and replaces it.
    var failureAwaitsAnswer: Int?
    package internal(set) var finished = false
    var backoff: ReconnectBackoff
    /// Whether the driver opens a socket only once the upload is accepted (a batch's shared socket
    /// subscribes existing jobs only): then a refusal can never be the upgrade racing the upload.
    let socketWaitsForUpload: Bool
    /// The event stream (SSE): the ladder's second step.
    var stream: EventStreamLeg
    /// Whether the event stream was carrying the job when the run ended.
    var streamCarriedEnd = false
    /// Whether the transport carrying the job keeps up with the server (`auto`).
    var lag = LagWatch()

    /// `continuing`: the last event a previous submission of the same job showed (a resubmission
    /// after the server lost the job); this run's stream goes on from it. `eventStreamAvailable`:
    /// false when the server says it has no event stream (the ladder goes from the WebSocket to polling).
    package init(
        mode: TrackerMode, settings: TrackerSettings = .init(), seed: UInt64 = 0x5EED, continuing: JobEvent? = nil,
        ladderStart: StreamTransport = .websocket, eventStreamAvailable: Bool = true, socketWaitsForUpload: Bool = false
    ) {
        self.socketWaitsForUpload = socketWaitsForUpload
        self.mode = mode
        self.ladderStart = mode == .auto ? ladderStart : .websocket
        self.settings = settings
        self.backoff = ReconnectBackoff(base: settings.backoffBase, cap: settings.backoffCap, seed: seed)
        self.stream = EventStreamLeg(settings: settings, seed: seed)
        if !eventStreamAvailable, mode == .auto { stream.phase = .abandoned }
        self.merge = EventMerge(continuing: continuing)
    }

    /// Upgrade refusals a retry cannot change within a run (after the one free retry of an upgrade
    /// that raced ahead of the upload): the socket is given up and polling carries the run.
    /// 429, 500, 502 and 504 (and an unknown status) may be transient and are retried with backoff.
    package static let finalRefusals: Set<Int> = [400, 404, 405, 410, 426, 501, 503, 505]

    /// The highest seq below which every event has been seen; sockets resume after it.
    package var resumeAfter: Int { merge.contiguous }

    // MARK: inputs

    /// The run begins; the upload may still be in flight. The socket opens now: order does not matter.
    package mutating func start() -> [Action] {
        guard !finished, mode == .websocket || (mode == .auto && ladderStart == .websocket) else { return [] }
        return openSocket()
    }

    /// The server accepted the upload and returned this snapshot (which arrived at `receivedAt`, when known).
    package mutating func uploadAccepted(_ snapshot: JobSnapshot, receivedAt: Date? = nil) -> [Action] {
        guard !finished else { return [] }
        _ = lag.age(of: snapshot.updatedAt, receivedAt: receivedAt)  // a sample of the clocks' offset
        uploadAccepted = true
        firstConnectionAfterAccept = nextConnection
        var actions = ingest(snapshot, path: .upload)
        guard !finished else { return actions }
        switch mode {
        case .polling:
            actions += startPolling()
        case .sse:
            actions += openStream()
        case .auto where ladderStart == .sse:
            actions += startFallback()
        case .auto, .websocket:
            if !everSawFrame {
                if mode == .auto { actions.append(.schedule(.firstFrameDeadline, after: settings.firstFrameDeadline)) }
                actions.append(.schedule(.socketGiveUp, after: settings.socketGiveUp))
            }
            if pendingReopenAfterAccept {
                pendingReopenAfterAccept = false
                actions += openSocket()
            }
            if firstFailure != nil {
                // The WebSocket already failed (say, a proxy refused the upgrade during the upload):
                // the ladder's next step starts now, not at the first-frame deadline.
                actions += startFallback()
            }
        }
        return actions
    }

    package mutating func socketOpened(connection: Int) -> [Action] {
        guard !finished, case .connecting(connection) = socket else { return [] }
        socket = .open(connection, sawFrame: false)
        return [.cancel(.connectDeadline(connection: connection)), .schedule(.silence(connection: connection), after: settings.silenceTimeout)]
    }

    /// A frame arrived on a socket (at `receivedAt`, when known: it tells how far behind the socket is).
    package mutating func socketMessage(connection: Int, _ message: ServerMessage, receivedAt: Date? = nil) -> [Action] {
        guard !finished, case .open(connection, let sawFrame) = socket else { return [] }
        if hedgeFor == connection { hedgeSawFrame = true }
        var actions: [Action] = [.schedule(.silence(connection: connection), after: settings.silenceTimeout)]
        if suspect == connection {
            // Behind, but alive: it was slow, not dead.
            suspect = nil
            actions.append(.cancel(.hedgeVerdict(connection: connection)))
        }
        if let late = settings.heartbeatLateAfter, mode == .auto, !sawFrame || message.isHeartbeat {
            // The server sends a heartbeat every interval whatever else it sends: the next one is
            // due one interval after this one (or after the first frame), and late a margin later.
            actions.append(.schedule(.heartbeatLate(connection: connection), after: late))
        }
        if !sawFrame {
            socket = .open(connection, sawFrame: true)
            everSawFrame = true
            consecutiveFailures = 0
            actions += [.cancel(.firstFrameDeadline), .cancel(.socketGiveUp)]
            if polling && mode == .auto {
                // The socket is healthy again: it carries the job, polling stops.
                polling = false
                actions.append(.cancel(.poll))
            }
            if mode == .auto { actions += closeStream() + watchLag(connection: connection) }
        }
        switch message {
        case .event(let event): actions += lagHeard(connection: connection, events: [event], receivedAt: receivedAt) + accept(event, path: .websocket)
        case .heartbeat(let beat): actions += lagHeard(connection: connection, events: [], heartbeat: (beat.latestSeq, beat.timestamp), receivedAt: receivedAt)
        case .subscribed, .refused: actions += lagHeard(connection: connection, events: [], receivedAt: receivedAt)
        }
        return actions
    }

    /// A socket could not open, or closed; either way it no longer carries the job.
    package mutating func socketEnded(connection: Int, _ end: SocketEnd) -> [Action] {
        guard !finished else { return [] }
        let wasOpen: Bool
        switch socket {
        case .connecting(connection): wasOpen = false
        case .open(connection, _): wasOpen = true
        default: return []
        }
        var actions: [Action] = [
            .cancel(.silence(connection: connection)), .cancel(.heartbeatLate(connection: connection)), .cancel(.connectDeadline(connection: connection)),
            .cancel(.hedgeVerdict(connection: connection)),
        ] + lagTimersCancelled(connection)
        if hedgeFor == connection { hedgeFor = nil }
        if suspect == connection { suspect = nil }
        if case .refused(let status) = end, status == nil || status == 404 || status == 426, connection < firstConnectionAfterAccept,
            !raceRetryUsed, !socketWaitsForUpload
        {
            // The upgrade raced ahead of the upload (the job did not exist yet): not a failure.
            // Reopen once the job exists; this free retry is used at most once per run.
            raceRetryUsed = true
            socket = .idle
            if uploadAccepted { return actions + openSocket() }
            pendingReopenAfterAccept = true
            return actions
        }
        let reason: SocketFailureReason
        var status: Int?
        switch end {
        case .refused(let code):
            reason = .refused
            status = code
        case .unreachable: reason = .network
        case .closed: reason = wasOpen ? .dropped : .network
        case .protocolError: reason = .protocolError
        }
        if failureAwaitsAnswer == connection, !wasOpen, let phase = firstFailure?.phase {
            // The deadline only said "no answer yet"; this is the answer (e.g. a proxy's 403 that
            // arrived after 2.5 s on a slow network).
            firstFailure = (reason, status, phase)
        }
        failureAwaitsAnswer = nil
        actions += socketFailed(reason: reason, status: status)
        if case .refused(let code) = end, code == 401 || code == 403 {
            // Credentials (or a proxy) forbid it: retrying cannot help. Polling will tell (and end the run).
            socket = .abandoned
            actions.append(.cancel(.reconnect))
            if mode == .websocket { actions += finish(.unauthorized(status: code ?? 401)) }
        } else if case .refused(let code?) = end, Self.finalRefusals.contains(code), mode == .auto {
            // The service says the WebSocket is unavailable (503), or the route or a middlebox refuses
            // the upgrade itself (404 once the job exists, 426…): a retry gets the same answer.
            // Polling carries the rest of this run.
            socket = .abandoned
            actions.append(.cancel(.reconnect))
        } else if case .refused(nil) = end, mode == .auto, stream.phase != .abandoned {
            // Refused with no status known: with the event stream in the ladder the driver does not
            // spend a request to probe why — the stream's own answer on the same route says it (it
            // carries the job when only the upgrade is blocked; its status explains anything else).
            // A refused upgrade is not retried in this run, as a probed 403/426 would not be.
            socket = .abandoned
            actions.append(.cancel(.reconnect))
        }
        return actions
    }

    /// Whether a refused upgrade should be probed with a plain GET to learn its status: not when the
    /// event stream is in the ladder (its request on the same route answers that).
    package var probesRefusedUpgrades: Bool { !(mode == .auto && stream.phase != .abandoned) }

    /// A status poll's outcome (which arrived at `receivedAt`, when known).
    package mutating func pollResult(_ outcome: PollOutcome, receivedAt: Date? = nil) -> [Action] {
        pollInFlight = false
        guard !finished else { return [] }
        switch outcome {
        case .snapshot(let snapshot):
            metrics.pollsSucceeded += 1
            var actions = lagPollShowed(snapshot, receivedAt: receivedAt)
            if let connection = hedgeFor {
                hedgeFor = nil
                if case .open(connection, _) = socket, snapshot.seq > merge.lastDelivered, !hedgeSawFrame, let margin = settings.heartbeatLateMargin {
                    // The hedged poll found news the socket never delivered (and the socket sent
                    // nothing while the poll was out): the news is shown now, and the socket is dead
                    // unless a frame arrives within the margin.
                    suspect = connection
                    actions.append(.schedule(.hedgeVerdict(connection: connection), after: margin))
                } else if case .open(connection, _) = socket, !hedgeSawFrame, let margin = settings.heartbeatLateMargin {
                    // Nothing new yet and still no frame: ask again a margin later (the server may
                    // simply have had no news); the silence rule stays the backstop.
                    actions.append(.schedule(.heartbeatLate(connection: connection), after: margin))
                }
            }
            return actions + ingest(snapshot, path: .polling)
        case .httpError(let status, _) where status == 404:
            return finish(.jobLost)
        case .httpError(let status, _) where status == 401 || status == 403:
            return finish(.unauthorized(status: status))
        case .throttled(let status, _) where status == 401 || status == 403:
            return finish(.unauthorized(status: status))
        case .throttled(_, let wait):
            // The server asked for a pause: the next poll waits for it (never less than the poll
            // interval, never more than the bound), instead of hammering a busy server.
            metrics.pollErrors += 1
            hedgeFor = nil
            guard polling else { return [] }
            return [.schedule(.poll, after: min(max(wait, settings.pollInterval), settings.maxRetryAfter))]
        case .httpError, .transportError:
            metrics.pollErrors += 1
            hedgeFor = nil
            return []
        }
    }

    /// `--timeout` passed.
    package mutating func deadlineExceeded() -> [Action] { finished ? [] : finish(.timedOut) }

    /// The user pressed Ctrl-C.
    package mutating func interrupted() -> [Action] { finished ? [] : finish(.interrupted) }

    // MARK: internals

    mutating func openSocket() -> [Action] {
        let connection = nextConnection
        nextConnection += 1
        socket = .connecting(connection)
        metrics.socketAttempts += 1
        var actions: [Action] = [.openSocket(connection: connection, after: merge.contiguous)]
        if everSawFrame {
            // After the first frame no first-frame deadline watches a reconnect: its own deadline does.
            actions.append(.schedule(.connectDeadline(connection: connection), after: settings.reconnectDeadline))
        }
        return actions
    }

    mutating func closeCurrentSocket() -> [Action] {
        switch socket {
        case .connecting(let c), .open(let c, _):
            [
                .closeSocket(connection: c), .cancel(.silence(connection: c)), .cancel(.heartbeatLate(connection: c)),
                .cancel(.connectDeadline(connection: c)), .cancel(.hedgeVerdict(connection: c)),
            ] + lagTimersCancelled(c)
        default: []
        }
    }

    mutating func recordFailure(reason: SocketFailureReason, status: Int?) {
        guard firstFailure == nil else { return }
        firstFailure = (reason, status, streamedEvents > 0 ? .midScan : .beforeFirstEvent)
    }

    /// One WebSocket failure: count it, fall back to polling (auto), and schedule a reconnect.
    mutating func socketFailed(reason: SocketFailureReason, status: Int?) -> [Action] {
        metrics.socketFailures += 1
        recordFailure(reason: reason, status: status)
        var actions: [Action] = []
        if mode == .auto { actions += startFallback() }
        if metrics.socketFailures >= settings.maxSocketFailures {
            socket = .abandoned
            if mode == .websocket { actions += finish(.socketUnavailable(reason)) }
            return actions
        }
        socket = .waitingToReconnect
        let attempt = consecutiveFailures
        consecutiveFailures += 1
        actions.append(.schedule(.reconnect, after: backoff.delay(attempt: attempt)))
        return actions
    }

    mutating func startPolling() -> [Action] {
        guard !polling, uploadAccepted, !finished else { return [] }
        polling = true
        return pollNowAndReschedule()
    }

    /// Polls now unless a poll is still in flight, and schedules the next tick.
    mutating func pollNowAndReschedule() -> [Action] {
        var actions: [Action] = [.schedule(.poll, after: settings.pollInterval)]
        if !pollInFlight {
            pollInFlight = true
            metrics.pollsMade += 1
            actions.append(.poll)
        }
        return actions
    }

    mutating func ingest(_ snapshot: JobSnapshot, path: EventPath) -> [Action] {
        guard snapshot.seq > 0 else { return [] }
        let event = JobEvent(
            jobId: snapshot.jobId, seq: snapshot.seq, state: snapshot.state, stage: snapshot.stage, fraction: snapshot.fraction,
            timestamp: snapshot.updatedAt, result: snapshot.result, error: snapshot.error)
        return accept(event, path: path)
    }

    mutating func accept(_ event: JobEvent, path: EventPath) -> [Action] {
        guard !finished, let displayFraction = merge.accept(event) else { return [] }
        metrics.eventsByPath[path, default: 0] += 1
        var actions: [Action] = [.deliver(event, path: path, displayFraction: displayFraction)]
        if event.state.isTerminal {
            actions += finish(.terminal(event))
        }
        return actions
    }

    mutating func finish(_ ending: TrackerEnding) -> [Action] {
        guard !finished else { return [] }
        socketCarriedEnd = mode != .polling && socketIsCarrying
        streamCarriedEnd = stream.isCarrying
        pollingAtEnd = polling
        finished = true
        polling = false
        hedgeFor = nil
        suspect = nil
        var actions = closeCurrentSocket() + closeStream(abandon: true)
        if let watched = lag.connection { actions += lagTimersCancelled(watched) }
        socket = .abandoned
        actions += [.cancel(.firstFrameDeadline), .cancel(.socketGiveUp), .cancel(.reconnect), .cancel(.poll)]
        actions.append(.finish(ending))
        return actions
    }
}
