import Foundation
import RunModel
import ScanProtocol

/// `TrackerRun`'s routing to its legs and watches: the WebSocket, the event stream, polling, the merge and the
/// lag watch, what each returns turned into actions (the inputs themselves are in TrackerRun.swift; each leg's
/// transitions in its own file).
extension TrackerRun {
    // MARK: classification

    /// See `TrackerStateMachine.strategy`; this is the run's as it stands.
    var strategy: ProgressStrategy? {
        if mode == .polling { return .polling }
        if socket.isCarrying { return metrics.socketFailures > 0 ? .websocketReconnected : .websocket }
        if stream.isCarrying { return .sse(afterWebSocket: mode == .sse ? nil : socket.failure) }
        guard polling.isFollowing || metrics.pollsMade > metrics.hedgedPolls else { return nil }
        if let failure = stream.firstFailure {
            return .pollingFallback(reason: failure.reason, status: failure.status, phase: failure.phase, from: .sse)
        }
        let failure = socket.failure ?? TransportFailure(reason: .connectTimeout, phase: .beforeFirstEvent)
        return .pollingFallback(reason: failure.reason, status: failure.status, phase: failure.phase)
    }

    /// Whether a failure now is before any event or mid-scan (events delivered so far from the
    /// streaming paths and polls).
    var fallbackPhase: FallbackPhase {
        let streamed =
            metrics.eventsByPath[.websocket, default: 0] + metrics.eventsByPath[.sse, default: 0] + metrics.eventsByPath[.polling, default: 0]
        return streamed > 0 ? .midScan : .beforeFirstEvent
    }

    // MARK: the WebSocket

    mutating func takeConnectionNumber() -> Int {
        defer { nextConnection += 1 }
        return nextConnection
    }

    mutating func openSocket() -> [Action] {
        let connection = takeConnectionNumber()
        socket.connect(connection: connection)
        metrics.socketAttempts += 1
        var actions: [Action] = [.openSocket(connection: connection, after: merge.contiguous)]
        if socket.everCarried {
            // After the first frame no first-frame deadline watches a reconnect: its own deadline does.
            actions.append(.schedule(.connectDeadline(connection: connection), after: settings.reconnectDeadline))
        }
        return actions
    }

    /// Closes the socket attempt in flight or open, if any, and cancels its timers (the caller moves its state on).
    mutating func closeCurrentSocket() -> [Action] { closeSocket(socket.connection) }

    /// Closes socket attempt `connection` (nil: none) and cancels its timers.
    mutating func closeSocket(_ connection: Int?) -> [Action] {
        guard let c = connection else { return [] }
        let actions: [Action] = [
            .closeSocket(connection: c), .cancel(.silence(connection: c)), .cancel(.heartbeatLate(connection: c)),
            .cancel(.connectDeadline(connection: c)), .cancel(.hedgeVerdict(connection: c)),
        ]
        return actions + lagTimersCancelled(c)
    }

    /// One WebSocket failure: count it, fall back (auto), and schedule a reconnect unless there were too many.
    mutating func socketFailed(reason: SocketFailureReason, status: Int?) -> [Action] {
        metrics.socketFailures += 1
        let failure = TransportFailure(reason: reason, status: status, phase: fallbackPhase)
        let reconnect = socket.failed(failure, giveUp: metrics.socketFailures >= settings.maxSocketFailures)
        var actions: [Action] = []
        if mode == .auto { actions += startFallback() }
        guard let reconnect else {
            if mode == .websocket { actions += finish(.socketUnavailable(reason)) }
            return actions
        }
        actions.append(.schedule(.reconnect, after: reconnect))
        return actions
    }

    // MARK: the event stream (SSE)

    /// The WebSocket cannot carry the job now (`auto`): the event stream takes over, or polling when
    /// the stream has been given up or already failed.
    mutating func startFallback() -> [Action] {
        guard mode == .auto, upload.isAccepted else { return [] }
        switch stream.state {
        case .idle: return openStream()
        case .abandoned: return startPolling()
        case .connecting, .open, .flowing, .carrying, .waitingToReconnect: return []
        }
    }

    mutating func openStream() -> [Action] {
        let connection = takeConnectionNumber()
        stream.connect(connection: connection)
        metrics.streamAttempts += 1
        return [
            .openStream(connection: connection, after: merge.contiguous),
            .schedule(.streamFirstByte(connection: connection), after: settings.firstFrameDeadline),
        ]
    }

    /// Closes the stream (the WebSocket carries again); it may be opened again later unless abandoned.
    mutating func closeStream() -> [Action] {
        var actions: [Action] = [.cancel(.streamReconnect)]
        if let connection = stream.close() {
            actions += [.closeSocket(connection: connection), .cancel(.silence(connection: connection)), .cancel(.streamFirstByte(connection: connection))]
            actions += lagTimersCancelled(connection)
        }
        return actions
    }

    /// One event-stream failure: count it, hand over to polling (`auto`), and reconnect with backoff
    /// unless the failure is final or there were too many.
    mutating func streamFailed(_ reason: SocketFailureReason, status: Int?, final: Bool) -> [Action] {
        metrics.streamFailures += 1
        let failure = TransportFailure(reason: reason, status: status, phase: fallbackPhase)
        var actions: [Action] = []
        if let reconnect = stream.failed(failure, giveUp: final || metrics.streamFailures >= settings.maxSocketFailures) {
            actions.append(.schedule(.streamReconnect, after: reconnect))
        } else if mode == .sse {
            return finish(.socketUnavailable(reason))
        }
        if mode == .auto { actions += startPolling() }
        return actions
    }

    /// The stream opened but no byte came in time: a proxy is buffering the response, and will do
    /// so again. The stream is given up for the run.
    mutating func streamBuffered(connection: Int) -> [Action] {
        switch stream.state {
        case .connecting(connection), .open(connection): break
        case .idle, .connecting, .open, .flowing, .carrying, .waitingToReconnect, .abandoned: return []
        }
        let actions: [Action] = [.closeSocket(connection: connection), .cancel(.silence(connection: connection))]
        return actions + streamFailed(.buffered, status: nil, final: true)
    }

    /// The stream has been silent for the silence timeout.
    mutating func streamSilent(connection: Int) -> [Action] {
        guard stream.openConnection == connection else { return [] }
        return [.closeSocket(connection: connection), .cancel(.streamFirstByte(connection: connection))] + lagTimersCancelled(connection)
            + streamFailed(.silent, status: nil, final: false)
    }

    // MARK: polling

    /// Polling follows the job (once the upload is accepted).
    mutating func startPolling() -> [Action] {
        guard upload.isAccepted else { return [] }
        return pollingActions(polling.follow())
    }

    /// What polling asked for: the next tick and a poll (counted) unless one was out, or the tick cancelled.
    mutating func pollingActions(_ action: PollingLeg.Action) -> [Action] {
        switch action {
        case .none:
            return []
        case .tick(let pollNow):
            guard pollNow else { return [.schedule(.poll, after: settings.pollInterval)] }
            metrics.pollsMade += 1
            return [.schedule(.poll, after: settings.pollInterval), .poll]
        case .stopTicking:
            return [.cancel(.poll)]
        }
    }

    /// A poll that checks a streaming transport rather than follows the job (the caller checked `PollingLeg.mayHedge`).
    mutating func sendHedgedPoll() -> [Action] {
        polling.hedgedPollSent()
        metrics.pollsMade += 1
        metrics.hedgedPolls += 1
        return [.poll]
    }

    // MARK: the merge

    mutating func ingest(_ snapshot: JobSnapshot, path: EventPath) -> [Action] {
        guard snapshot.seq > 0 else { return [] }
        let event = JobEvent(
            jobId: snapshot.jobId, seq: snapshot.seq, state: snapshot.state, stage: snapshot.stage, fraction: snapshot.fraction,
            timestamp: snapshot.updatedAt, result: snapshot.result, error: snapshot.error)
        return accept(event, path: path)
    }

    mutating func accept(_ event: JobEvent, path: EventPath) -> [Action] {
        guard let displayFraction = merge.accept(event) else { return [] }
        metrics.eventsByPath[path, default: 0] += 1
        let delivered: [Action] = [.deliver(event, path: path, displayFraction: displayFraction)]
        return event.state.isTerminal ? delivered + finish(.terminal(event)) : delivered
    }

    // MARK: is the carrying transport behind? (`auto` only; see `LagWatch`)
    //
    // While a transport carries the job, fresh news from it (an event or a WebSocket heartbeat no
    // older than `maxLag`) pushes the lag probe back (`TrackerSettings.lagProbeDelay`). When it fires, a
    // hedged poll asks the job's status, again every interval until fresh news comes. A poll that
    // shows a seq the transport has not delivered shows it at once (through the merge, like any
    // poll) and starts the verdict clock: the transport that has not delivered that seq `maxLag`
    // later is lagging (still sending: left for the rest of the run, the next step of the ladder
    // takes over, the reason `lagging`) or silent (sending nothing: a failure like any silence).

    /// Whether `connection` is the transport carrying the job now.
    func carries(_ connection: Int) -> Bool {
        if case .carrying(connection, _) = socket.state { return true }
        return stream.state == .carrying(connection)
    }

    /// `connection` now carries the job (a socket's first frame, the stream's first delivery): watch it.
    mutating func watchLag(connection: Int) -> [Action] {
        guard mode == .auto else { return [] }
        var actions: [Action] = []
        if let previous = lag.connection, previous != connection { actions += lagTimersCancelled(previous) }
        lag.watch(connection: connection, reached: merge.contiguous)
        actions.append(.schedule(.lagProbe(connection: connection), after: settings.lagProbeDelay))
        return actions
    }

    /// The watched connection sent something: these events, and the server's latest seq and time from a
    /// heartbeat (an older server's event stream heartbeat has no time). Pays a debt, pushes the probe back when
    /// fresh, brings it forward by a grace when a heartbeat names a seq the connection never delivered.
    mutating func lagHeard(
        connection: Int, events: [JobEvent], heartbeat: (latestSeq: Int, timestamp: Date?)? = nil, receivedAt: Date?
    ) -> [Action] {
        guard lag.connection == connection else { return [] }
        var actions: [Action] = []
        if lag.heard(reaching: events.map(\.seq).max()) { actions.append(.cancel(.lagVerdict(connection: connection))) }
        var fresh = false
        for event in events where isFresh(event.timestamp, receivedAt: receivedAt) { fresh = true }
        if let heartbeat {
            if heartbeat.latestSeq > lag.reached {
                // The server wrote a seq before this heartbeat that this connection has not delivered.
                // Its frame may be right behind the heartbeat (written after it): the probe comes after
                // a short grace unless that frame, fresh news, pushes it back first. Polling at once
                // would show the seq and skip the frames still in flight.
                guard !lag.probeBroughtForward else { return actions }
                lag.probeBroughtForward = true
                return actions + [.schedule(.lagProbe(connection: connection), after: settings.heartbeatAheadGrace)]
            }
            if let timestamp = heartbeat.timestamp, isFresh(timestamp, receivedAt: receivedAt) { fresh = true }
        }
        if fresh {
            lag.probeBroughtForward = false
            actions.append(.schedule(.lagProbe(connection: connection), after: settings.lagProbeDelay))
        }
        return actions
    }

    /// Whether something the server stamped `timestamp` arrived no later than `maxLag` after the
    /// freshest arrival seen; without an arrival time (a caller without a clock) it counts as fresh.
    mutating func isFresh(_ timestamp: Date, receivedAt: Date?) -> Bool {
        guard let age = lag.age(of: timestamp, receivedAt: receivedAt) else { return true }
        return age <= settings.maxLag
    }

    /// A poll answered with `snapshot` at `receivedAt`: a sample of the clocks' offset, and news the
    /// watched connection has not delivered starts the verdict clock.
    mutating func lagPollShowed(_ snapshot: JobSnapshot, receivedAt: Date?) -> [Action] {
        _ = lag.age(of: snapshot.updatedAt, receivedAt: receivedAt)
        guard let connection = lag.connection, carries(connection), lag.pollShowed(snapshot.seq) else { return [] }
        return [.schedule(.lagVerdict(connection: connection), after: settings.maxLag)]
    }

    /// The probe: a hedged poll unless a request is out (or polling runs anyway), and the next probe.
    mutating func lagProbe(connection: Int) -> [Action] {
        guard mode == .auto, lag.connection == connection, carries(connection) else { return [] }
        lag.probeBroughtForward = false
        let next: [Action] = [.schedule(.lagProbe(connection: connection), after: settings.lagProbeDelay)]
        guard polling.mayHedge, upload.isAccepted else { return next }
        return next + sendHedgedPoll()
    }

    /// The lag bound passed since a poll showed what `connection` had not delivered.
    mutating func lagVerdict(connection: Int) -> [Action] {
        guard lag.connection == connection, carries(connection) else { return [] }
        let verdict = lag.verdict
        let reason: SocketFailureReason
        switch verdict {
        case .keepingUp: return []
        case .lagging: reason = .lagging
        case .silent: reason = .silent
        }
        lag.stop()
        if stream.connection == connection {
            let actions: [Action] = [.closeSocket(connection: connection), .cancel(.silence(connection: connection))] + lagTimersCancelled(connection)
            // A lagging stream is given up for the run (the same middlebox would trickle the next one); a silent one may heal.
            return actions + streamFailed(reason, status: nil, final: verdict == .lagging)
        }
        var actions = closeCurrentSocket()
        actions += socketFailed(reason: reason, status: nil)
        if verdict == .lagging, !actions.endsRun {
            // Not retried in this run: the next socket would cross the same middlebox.
            socket.abandon()
            actions.append(.cancel(.reconnect))
        }
        return actions
    }

    /// Cancels the lag timers of `connection`, and stops watching it if it was watched.
    mutating func lagTimersCancelled(_ connection: Int) -> [Action] {
        if lag.connection == connection { lag.stop() }
        return [.cancel(.lagProbe(connection: connection)), .cancel(.lagVerdict(connection: connection))]
    }
}
