import Foundation
import RunModel
import ScanProtocol

extension TrackerStateMachine {
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
        if case .open(connection, sawFrame: true) = socket { return true }
        return stream.connection == connection && stream.isCarrying
    }

    /// `connection` now carries the job (a socket's first frame, the stream's first delivery): watch it.
    mutating func watchLag(connection: Int) -> [Action] {
        guard mode == .auto, !finished else { return [] }
        var actions: [Action] = []
        if let previous = lag.connection, previous != connection { actions += lagTimersCancelled(previous) }
        lag.watch(connection: connection, reached: merge.contiguous)
        actions.append(.schedule(.lagProbe(connection: connection), after: lagProbeDelay(connection)))
        return actions
    }

    /// The watched connection sent something: these events, and the server's latest seq and time from a
    /// heartbeat (an older server's event stream heartbeat has no time). Pays a debt, pushes the probe back when
    /// fresh, probes at once when a heartbeat names a seq the connection never delivered.
    mutating func lagHeard(
        connection: Int, events: [JobEvent], heartbeat: (latestSeq: Int, timestamp: Date?)? = nil, receivedAt: Date?
    ) -> [Action] {
        guard lag.connection == connection, !finished else { return [] }
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
            actions.append(.schedule(.lagProbe(connection: connection), after: lagProbeDelay(connection)))
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

    /// The probe: a hedged poll unless one is out (or polling runs anyway), and the next probe.
    mutating func lagProbe(connection: Int) -> [Action] {
        guard mode == .auto, !finished, lag.connection == connection, carries(connection) else { return [] }
        lag.probeBroughtForward = false
        var actions: [Action] = [.schedule(.lagProbe(connection: connection), after: lagProbeDelay(connection))]
        if !polling, !pollInFlight, uploadAccepted {
            pollInFlight = true
            metrics.pollsMade += 1
            metrics.hedgedPolls += 1
            actions.append(.poll)
        }
        return actions
    }

    /// The lag bound passed since a poll showed what `connection` had not delivered.
    mutating func lagVerdict(connection: Int) -> [Action] {
        guard !finished, lag.connection == connection, carries(connection) else { return [] }
        let verdict = lag.verdict
        guard verdict != .keepingUp else { return [] }
        lag.stop()
        let reason: SocketFailureReason = verdict == .lagging ? .lagging : .silent
        if stream.connection == connection {
            let actions: [Action] = [.closeSocket(connection: connection), .cancel(.silence(connection: connection))] + lagTimersCancelled(connection)
            // A lagging stream is given up for the run (the same middlebox would trickle the next one); a silent one may heal.
            return actions + streamFailed(reason, status: nil, final: verdict == .lagging)
        }
        var actions = closeCurrentSocket()
        actions += socketFailed(reason: reason, status: nil)
        if verdict == .lagging {
            // Not retried in this run: the next socket would cross the same middlebox.
            socket = .abandoned
            actions.append(.cancel(.reconnect))
        }
        return actions
    }

    /// How long `connection` may bring no fresh news before the probe (`TrackerSettings.lagProbeDelay`).
    func lagProbeDelay(_ connection: Int) -> Duration { settings.lagProbeDelay }

    /// Cancels the lag timers of `connection`, and stops watching it if it was watched.
    mutating func lagTimersCancelled(_ connection: Int) -> [Action] {
        if lag.connection == connection { lag.stop() }
        return [.cancel(.lagProbe(connection: connection)), .cancel(.lagVerdict(connection: connection))]
    }
}
