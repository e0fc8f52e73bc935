import Foundation
import RunModel
import ScanProtocol

/// A `TrackerStateMachine`'s running phase: one leg per transport (`SocketLeg`, `EventStreamLeg`,
/// `PollingLeg`) and the `Upload`, the merge of their events, the lag watch and the counters. Each leg
/// owns its transitions (a `mutating func` per input, returning what the run must do); the run routes
/// every input to its legs and combines what they return with the merge, the lag watch and the counters.
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

    let mode: TrackerMode
    let ladderStart: StreamTransport
    let settings: TrackerSettings
    var metrics = TrackerMetrics()
    var merge: EventMerge
    private(set) var upload = Upload.inFlight
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
        stream = EventStreamLeg(settings: settings, seed: seed, unavailable: !eventStreamAvailable && mode == .auto)
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
        upload.accepted(nextConnection: nextConnection)
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
            if socket.uploadAccepted() { actions += openSocket() }
            if socket.failure != nil {
                // The WebSocket already failed (say, a proxy refused the upgrade during the upload):
                // the ladder's next step starts now, not at the first-frame deadline.
                actions += startFallback()
            }
        }
        return actions
    }

    mutating func socketOpened(connection: Int) -> [Action] {
        guard socket.opened(connection: connection) else { return [] }
        return [.cancel(.connectDeadline(connection: connection)), .schedule(.silence(connection: connection), after: settings.silenceTimeout)]
    }

    mutating func socketMessage(connection: Int, _ message: ServerMessage, receivedAt: Date?) -> [Action] {
        guard let frame = socket.frameArrived(connection: connection) else { return [] }
        var actions: [Action] = [.schedule(.silence(connection: connection), after: settings.silenceTimeout)]
        if frame == .cleared { actions.append(.cancel(.hedgeVerdict(connection: connection))) }
        let firstFrame = frame == .first
        if let late = settings.heartbeatLateAfter, mode == .auto, firstFrame || message.isHeartbeat {
            // The server sends a heartbeat every interval whatever else it sends: the next one is
            // due one interval after this one (or after the first frame), and late a margin later.
            actions.append(.schedule(.heartbeatLate(connection: connection), after: late))
        }
        if firstFrame {
            actions += [.cancel(.firstFrameDeadline), .cancel(.socketGiveUp)]
            if mode == .auto {
                // The socket is healthy again: it carries the job, polling stops and the stream closes.
                actions += pollingActions(polling.transportCarries()) + closeStream() + watchLag(connection: connection)
            }
        }
        switch message {
        case .event(let event): actions += lagHeard(connection: connection, events: [event], receivedAt: receivedAt) + accept(event, path: .websocket)
        case .heartbeat(let beat): actions += lagHeard(connection: connection, events: [], heartbeat: (beat.latestSeq, beat.timestamp), receivedAt: receivedAt)
        case .subscribed, .refused: actions += lagHeard(connection: connection, events: [], receivedAt: receivedAt)
        }
        return actions
    }

    mutating func socketEnded(connection: Int, _ end: SocketEnd) -> [Action] {
        let closed = socket.closed(
            connection: connection, end: end, startedBeforeAccept: upload.startedBeforeAccept(connection), uploadAccepted: upload.isAccepted)
        guard let closed else { return [] }
        var actions: [Action] = [
            .cancel(.silence(connection: connection)), .cancel(.heartbeatLate(connection: connection)), .cancel(.connectDeadline(connection: connection)),
            .cancel(.hedgeVerdict(connection: connection)),
        ] + lagTimersCancelled(connection)
        let reason: SocketFailureReason
        let status: Int?
        switch closed {
        case .raceLost(let reopenNow):
            // The upgrade raced ahead of the upload: not a failure; the socket reopens once the job exists.
            return reopenNow ? actions + openSocket() : actions
        case .failed(let failure, let code):
            (reason, status) = (failure, code)
        }
        actions += socketFailed(reason: reason, status: status)
        if actions.endsRun { return actions }
        switch end {
        case .refused(let code?) where code == 401 || code == 403:
            // Credentials (or a proxy) forbid it: retrying cannot help. Polling will tell (and end the run).
            socket.abandon()
            actions.append(.cancel(.reconnect))
            if mode == .websocket { actions += finish(.unauthorized(status: code)) }
        case .refused(let code?) where mode == .auto && TrackerStateMachine.finalRefusals.contains(code):
            // The service says the WebSocket is unavailable (503), or the route or a middlebox refuses
            // the upgrade itself (404 once the job exists, 426…): a retry gets the same answer.
            // Polling carries the rest of this run.
            socket.abandon()
            actions.append(.cancel(.reconnect))
        case .refused(nil) where mode == .auto && stream.state != .abandoned:
            // Refused with no status known: with the event stream in the ladder the driver does not
            // spend a request to probe why — the stream's own answer on the same route says it (it
            // carries the job when only the upgrade is blocked; its status explains anything else).
            // A refused upgrade is not retried in this run, as a probed 403/426 would not be.
            socket.abandon()
            actions.append(.cancel(.reconnect))
        case .refused, .unreachable, .closed, .protocolError:
            break
        }
        return actions
    }

    mutating func streamOpened(connection: Int) -> [Action] {
        guard stream.opened(connection: connection) else { return [] }
        return [.schedule(.silence(connection: connection), after: settings.silenceTimeout)]
    }

    mutating func streamReceived(
        connection: Int, _ events: [JobEvent], heartbeats: Int, heartbeat: (latestSeq: Int, timestamp: Date?)?, receivedAt: Date?
    ) -> [Action] {
        guard let arrival = stream.received(connection: connection, delivers: !events.isEmpty || heartbeats > 0) else { return [] }
        var actions: [Action] = [.schedule(.silence(connection: connection), after: settings.silenceTimeout)]
        if arrival.firstBytes { actions.append(.cancel(.streamFirstByte(connection: connection))) }
        if arrival.startedCarrying {
            // The stream delivers (again): it carries the job, polling stops.
            if mode == .auto, !socket.isCarrying { actions += pollingActions(polling.transportCarries()) }
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
        polling.pollAnswered()
        switch outcome {
        case .snapshot(let snapshot):
            metrics.pollsSucceeded += 1
            var actions = lagPollShowed(snapshot, receivedAt: receivedAt)
            switch socket.hedgedPollAnswered(showedNews: snapshot.seq > merge.lastDelivered, margin: settings.heartbeatLateMargin) {
            case .settled: break
            case .suspect(let connection, let margin): actions.append(.schedule(.hedgeVerdict(connection: connection), after: margin))
            case .askAgain(let connection, let margin): actions.append(.schedule(.heartbeatLate(connection: connection), after: margin))
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
            socket.hedgedPollFailed()
            guard polling.isFollowing else { return [] }
            return [.schedule(.poll, after: min(max(wait, settings.pollInterval), settings.maxRetryAfter))]
        case .httpError, .transportError:
            metrics.pollErrors += 1
            socket.hedgedPollFailed()
            return []
        }
    }

    mutating func timerFired(_ timer: TrackerTimer) -> [Action] {
        switch timer {
        case .firstFrameDeadline:
            guard mode == .auto, socket.firstFrameDeadlinePassed(phase: fallbackPhase) else { return [] }
            return startFallback()
        case .socketGiveUp:
            guard let givenUp = socket.giveUpDeadlinePassed(phase: fallbackPhase) else { return [] }
            if givenUp.live != nil { metrics.socketFailures += 1 }  // a live attempt given up is a failed socket
            var actions = closeSocket(givenUp.live)
            actions.append(.cancel(.reconnect))
            return actions + (mode == .websocket ? finish(.socketUnavailable(givenUp.reason)) : startFallback())
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
            guard mode == .auto, polling.mayHedge, upload.isAccepted, socket.heartbeatLate(connection: connection) else { return [] }
            return sendHedgedPoll()
        case .hedgeVerdict(let connection):
            guard socket.hedgeVerdictDue(connection: connection) else { return [] }
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
            return pollingActions(polling.tickFired())
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
