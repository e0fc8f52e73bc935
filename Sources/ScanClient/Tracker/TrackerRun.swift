import Foundation
import RunModel
import ScanProtocol

/// A `TrackerStateMachine`'s running phase: one leg per transport (`SocketLeg`, `EventStreamLeg`,
/// `PollingLeg`), the merge of their events, the lag watch and the counters, and every transition.
///
/// Invariants (besides the machine's):
/// - the ending is always a transition's last action (`finish`), and `finish` leaves the run as it
///   was, so the machine classifies the run as it stood when it ended;
/// - socket and stream attempts are numbered from one sequence, so a connection number names one attempt;
/// - at most one status request is out (`PollingLeg.requestOut`), whoever sent it; a hedge exists only
///   on the socket carrying the job, and only while its hedged poll is out (or as a suspect, until its verdict);
/// - the lag watch watches only the transport carrying the job, and stops when it closes.
struct TrackerRun: Sendable {
    typealias Action = TrackerStateMachine.Action

    /// Whether the server has accepted the upload yet.
    enum Upload: Sendable {
        case inFlight
        /// Accepted when the next connection number was `firstConnection`: sockets numbered below it
        /// began before the job existed.
        case accepted(firstConnection: Int)

        var isAccepted: Bool {
            switch self {
            case .inFlight: false
            case .accepted: true
            }
        }
    }

    let mode: TrackerMode
    let ladderStart: StreamTransport
    let settings: TrackerSettings
    var metrics = TrackerMetrics()
    var merge: EventMerge
    var upload = Upload.inFlight
    /// The number of the next socket or stream attempt.
    var nextConnection = 1
    var socket: SocketLeg
    var stream: EventStreamLeg
    var polling = PollingLeg()
    /// Whether the transport carrying the job keeps up with the server (`auto`).
    var lag = LagWatch()

    init(
        mode: TrackerMode, ladderStart: StreamTransport, settings: TrackerSettings, seed: UInt64, continuing: JobEvent?,
        eventStreamAvailable: Bool, socketWaitsForUpload: Bool
    ) {
        self.mode = mode
        self.ladderStart = ladderStart
        self.settings = settings
        merge = EventMerge(continuing: continuing)
        socket = SocketLeg(settings: settings, seed: seed, waitsForUpload: socketWaitsForUpload)
        stream = EventStreamLeg(settings: settings, seed: seed)
        if !eventStreamAvailable, mode == .auto { stream.state = .abandoned }
    }

    /// See `TrackerStateMachine.probesRefusedUpgrades`.
    var probesRefusedUpgrades: Bool { !(mode == .auto && stream.state != .abandoned) }
}

// MARK: - inputs (each is the `TrackerStateMachine` input of the same name, documented there)

extension TrackerRun {
    mutating func start() -> [Action] {
        switch mode {
        case .websocket: openSocket()
        case .auto: ladderStart == .websocket ? openSocket() : []
        case .sse, .polling: []
        }
    }

    mutating func uploadAccepted(_ snapshot: JobSnapshot, receivedAt: Date?) -> [Action] {
        _ = lag.age(of: snapshot.updatedAt, receivedAt: receivedAt)  // a sample of the clocks' offset
        upload = .accepted(firstConnection: nextConnection)
        var actions = ingest(snapshot, path: .upload)
        if actions.endsRun { return actions }
        switch mode {
        case .polling:
            actions += startPolling()
        case .sse:
            actions += openStream()
        case .auto where ladderStart == .sse:
            actions += startFallback()
        case .auto, .websocket:
            if !socket.everCarried {
                if mode == .auto { actions.append(.schedule(.firstFrameDeadline, after: settings.firstFrameDeadline)) }
                actions.append(.schedule(.socketGiveUp, after: settings.socketGiveUp))
            }
            if socket.raceRetry == .reopenWhenAccepted {
                socket.raceRetry = .unavailable
                actions += openSocket()
            }
            if socket.failure != nil {
                // The WebSocket already failed (say, a proxy refused the upgrade during the upload):
                // the ladder's next step starts now, not at the first-frame deadline.
                actions += startFallback()
            }
        }
        return actions
    }

    mutating func socketOpened(connection: Int) -> [Action] {
        guard case .connecting(connection) = socket.state else { return [] }
        socket.state = .open(connection)
        return [.cancel(.connectDeadline(connection: connection)), .schedule(.silence(connection: connection), after: settings.silenceTimeout)]
    }

    mutating func socketMessage(connection: Int, _ message: ServerMessage, receivedAt: Date?) -> [Action] {
        var actions: [Action] = [.schedule(.silence(connection: connection), after: settings.silenceTimeout)]
        let firstFrame: Bool
        switch socket.state {
        case .open(connection):
            firstFrame = true
        case .carrying(connection, .none):
            firstFrame = false
        case .carrying(connection, .hedging):
            firstFrame = false
            socket.state = .carrying(connection, .hedging(sawFrame: true))
        case .carrying(connection, .suspect):
            // Behind, but alive: it was slow, not dead.
            firstFrame = false
            socket.state = .carrying(connection, .none)
            actions.append(.cancel(.hedgeVerdict(connection: connection)))
        case .idle, .connecting, .open, .carrying, .waitingToReconnect, .abandoned:
            return []
        }
        if let late = settings.heartbeatLateAfter, mode == .auto, firstFrame || message.isHeartbeat {
            // The server sends a heartbeat every interval whatever else it sends: the next one is
            // due one interval after this one (or after the first frame), and late a margin later.
            actions.append(.schedule(.heartbeatLate(connection: connection), after: late))
        }
        if firstFrame {
            socket.state = .carrying(connection, .none)
            socket.everCarried = true
            socket.consecutiveFailures = 0
            actions += [.cancel(.firstFrameDeadline), .cancel(.socketGiveUp)]
            if polling.isFollowing && mode == .auto {
                // The socket is healthy again: it carries the job, polling stops.
                polling.state = .off
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

    mutating func socketEnded(connection: Int, _ end: SocketEnd) -> [Action] {
        let wasOpen: Bool
        switch socket.state {
        case .connecting(connection): wasOpen = false
        case .open(connection), .carrying(connection, _): wasOpen = true
        case .idle, .connecting, .open, .carrying, .waitingToReconnect, .abandoned: return []
        }
        var actions: [Action] = [
            .cancel(.silence(connection: connection)), .cancel(.heartbeatLate(connection: connection)), .cancel(.connectDeadline(connection: connection)),
            .cancel(.hedgeVerdict(connection: connection)),
        ] + lagTimersCancelled(connection)
        if case .refused(let status) = end, status == nil || status == 404 || status == 426, startedBeforeAccept(connection),
            socket.raceRetry == .available
        {
            // The upgrade raced ahead of the upload (the job did not exist yet): not a failure.
            // Reopen once the job exists; this free retry is used at most once per run.
            socket.state = .idle
            switch upload {
            case .accepted:
                socket.raceRetry = .unavailable
                return actions + openSocket()
            case .inFlight:
                socket.raceRetry = .reopenWhenAccepted
                return actions
            }
        }
        let reason = end.failureReason(wasOpen: wasOpen)
        var status: Int?
        if case .refused(let code) = end { status = code }
        socket.settleFirstFailure(endOf: connection, wasOpen: wasOpen, reason: reason, status: status)
        actions += socketFailed(reason: reason, status: status)
        if actions.endsRun { return actions }
        switch end {
        case .refused(let code?) where code == 401 || code == 403:
            // Credentials (or a proxy) forbid it: retrying cannot help. Polling will tell (and end the run).
            socket.state = .abandoned
            actions.append(.cancel(.reconnect))
            if mode == .websocket { actions += finish(.unauthorized(status: code)) }
        case .refused(let code?) where mode == .auto && TrackerStateMachine.finalRefusals.contains(code):
            // The service says the WebSocket is unavailable (503), or the route or a middlebox refuses
            // the upgrade itself (404 once the job exists, 426…): a retry gets the same answer.
            // Polling carries the rest of this run.
            socket.state = .abandoned
            actions.append(.cancel(.reconnect))
        case .refused(nil) where mode == .auto && stream.state != .abandoned:
            // Refused with no status known: with the event stream in the ladder the driver does not
            // spend a request to probe why — the stream's own answer on the same route says it (it
            // carries the job when only the upgrade is blocked; its status explains anything else).
            // A refused upgrade is not retried in this run, as a probed 403/426 would not be.
            socket.state = .abandoned
            actions.append(.cancel(.reconnect))
        case .refused, .unreachable, .closed, .protocolError:
            break
        }
        return actions
    }

    mutating func streamOpened(connection: Int) -> [Action] {
        guard case .connecting(connection) = stream.state else { return [] }
        stream.state = .open(connection)
        return [.schedule(.silence(connection: connection), after: settings.silenceTimeout)]
    }

    mutating func streamReceived(
        connection: Int, _ events: [JobEvent], heartbeats: Int, heartbeat: (latestSeq: Int, timestamp: Date?)?, receivedAt: Date?
    ) -> [Action] {
        let firstBytes: Bool
        switch stream.state {
        case .open(connection): firstBytes = true
        case .flowing(connection), .carrying(connection): firstBytes = false
        case .idle, .connecting, .open, .flowing, .carrying, .waitingToReconnect, .abandoned: return []
        }
        var actions: [Action] = [.schedule(.silence(connection: connection), after: settings.silenceTimeout)]
        if firstBytes {
            stream.state = .flowing(connection)
            actions.append(.cancel(.streamFirstByte(connection: connection)))
        }
        if !stream.isCarrying, !events.isEmpty || heartbeats > 0 {
            stream.state = .carrying(connection)
            stream.consecutiveFailures = 0
            if polling.isFollowing, mode == .auto, !socket.isCarrying {
                // The stream delivers (again): it carries the job, polling stops.
                polling.state = .off
                actions.append(.cancel(.poll))
            }
            if !socket.isCarrying { actions += watchLag(connection: connection) }
        }
        actions += lagHeard(connection: connection, events: events, heartbeat: heartbeat, receivedAt: receivedAt)
        for event in events where !actions.endsRun { actions += accept(event, path: .sse) }
        return actions
    }

    mutating func streamEnded(connection: Int, _ end: SocketEnd) -> [Action] {
        guard stream.connection == connection else { return [] }
        let wasOpen = stream.openConnection == connection
        let actions: [Action] = [.cancel(.silence(connection: connection)), .cancel(.streamFirstByte(connection: connection))]
            + lagTimersCancelled(connection)
        switch end {
        case .refused(let status?) where EventStreamLeg.finalRefusals.contains(status):
            if mode == .sse, status == 401 || status == 403 { return actions + finish(.unauthorized(status: status)) }
            return actions + streamFailed(.refused, status: status, final: true)
        case .refused(let status): return actions + streamFailed(.refused, status: status, final: false)
        case .unreachable, .closed, .protocolError: return actions + streamFailed(end.failureReason(wasOpen: wasOpen), status: nil, final: false)
        }
    }

    mutating func pollResult(_ outcome: PollOutcome, receivedAt: Date?) -> [Action] {
        polling.requestOut = false
        switch outcome {
        case .snapshot(let snapshot):
            metrics.pollsSucceeded += 1
            var actions = lagPollShowed(snapshot, receivedAt: receivedAt)
            if case .carrying(let connection, .hedging(let sawFrame)) = socket.state {
                socket.state = .carrying(connection, .none)
                if snapshot.seq > merge.lastDelivered, !sawFrame, let margin = settings.heartbeatLateMargin {
                    // The hedged poll found news the socket never delivered (and the socket sent
                    // nothing while the poll was out): the news is shown now, and the socket is dead
                    // unless a frame arrives within the margin.
                    socket.state = .carrying(connection, .suspect)
                    actions.append(.schedule(.hedgeVerdict(connection: connection), after: margin))
                } else if !sawFrame, let margin = settings.heartbeatLateMargin {
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
            socket.dropHedge()
            guard polling.isFollowing else { return [] }
            return [.schedule(.poll, after: min(max(wait, settings.pollInterval), settings.maxRetryAfter))]
        case .httpError, .transportError:
            metrics.pollErrors += 1
            socket.dropHedge()
            return []
        }
    }

    mutating func timerFired(_ timer: TrackerTimer) -> [Action] {
        switch timer {
        case .firstFrameDeadline:
            guard !socket.everCarried, mode == .auto else { return [] }
            let failure = TransportFailure(reason: socket.openConnection == nil ? .connectTimeout : .silent, phase: fallbackPhase)
            switch (socket.firstFailure, socket.state) {
            case (.none, .connecting(let connection)): socket.firstFailure = .awaitingAnswer(failure, connection: connection)
            case (.none, _): socket.firstFailure = .recorded(failure)
            case (.awaitingAnswer, _), (.recorded, _): break
            }
            return startFallback()
        case .socketGiveUp:
            guard !socket.everCarried else { return [] }
            let reason: SocketFailureReason = socket.openConnection == nil ? .connectTimeout : .silent
            if socket.connection != nil { metrics.socketFailures += 1 }  // a live attempt given up is a failed socket
            socket.record(TransportFailure(reason: reason, phase: fallbackPhase))
            var actions = closeCurrentSocket()
            socket.state = .abandoned
            actions.append(.cancel(.reconnect))
            return actions + (mode == .websocket ? finish(.socketUnavailable(reason)) : startFallback())
        case .silence(let connection):
            if stream.connection == connection { return streamSilent(connection: connection) }
            guard socket.openConnection == connection else { return [] }
            let actions: [Action] = [
                .closeSocket(connection: connection), .cancel(.heartbeatLate(connection: connection)), .cancel(.hedgeVerdict(connection: connection)),
            ]
            return actions + lagTimersCancelled(connection) + socketFailed(reason: .silent, status: nil)
        case .heartbeatLate(let connection):
            // The server's heartbeat is late: ask the status once, at once, while the socket stays
            // open. News the socket did not deliver means it is dead (see `pollResult`).
            guard case .carrying(connection, .none) = socket.state, mode == .auto, !polling.isFollowing, !polling.requestOut, upload.isAccepted
            else { return [] }
            socket.state = .carrying(connection, .hedging(sawFrame: false))
            return sendHedgedPoll()
        case .hedgeVerdict(let connection):
            guard case .carrying(connection, .suspect) = socket.state else { return [] }
            socket.state = .carrying(connection, .none)
            let actions: [Action] = [
                .closeSocket(connection: connection), .cancel(.silence(connection: connection)), .cancel(.heartbeatLate(connection: connection)),
            ]
            return actions + lagTimersCancelled(connection) + socketFailed(reason: .silent, status: nil)
        case .connectDeadline(let connection):
            // A reconnect whose upgrade is never answered.
            guard case .connecting(connection) = socket.state else { return [] }
            return [.closeSocket(connection: connection)] + socketFailed(reason: .connectTimeout, status: nil)
        case .reconnect:
            guard socket.state == .waitingToReconnect else { return [] }
            metrics.reconnects += 1
            return openSocket()
        case .streamFirstByte(let connection):
            return streamBuffered(connection: connection)
        case .streamReconnect:
            guard stream.state == .waitingToReconnect else { return [] }
            return openStream()
        case .poll:
            guard polling.isFollowing else { return [] }
            return pollNowAndReschedule()
        case .lagProbe(let connection):
            return lagProbe(connection: connection)
        case .lagVerdict(let connection):
            return lagVerdict(connection: connection)
        }
    }

    /// Reports `ending`: every socket and stream closed, every timer cancelled, and `.finish` last.
    /// The run itself is left as it was, for the classification.
    func finish(_ ending: TrackerEnding) -> [Action] {
        var closing = self
        var actions = closing.closeCurrentSocket() + closing.closeStream()
        if let watched = closing.lag.connection { actions += closing.lagTimersCancelled(watched) }
        return actions + [.cancel(.firstFrameDeadline), .cancel(.socketGiveUp), .cancel(.reconnect), .cancel(.poll), .finish(ending)]
    }
}
