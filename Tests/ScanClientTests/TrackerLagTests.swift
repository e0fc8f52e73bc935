import Foundation
import RunModel
import ScanClient
import ScanProtocol
import Testing

/// A transport that is behind is as bad as a dead one: the lag rules as pure transitions (no clock;
/// arrival times are given). Fresh news keeps a transport; without it a hedged poll checks it; news
/// the poll shows is delivered at once, and a transport that still has not delivered it a lag bound
/// later is left for the next step of the ladder, the reason `lagging`.
@Suite("Tracker lag (a trickling transport)")
struct TrackerLagTests {
    typealias Action = TrackerStateMachine.Action
    let fixtures = TrackerFixtures()
    let settings = TrackerSettings()
    /// The server's clock runs an hour ahead of this client's: ages must not care.
    let serverAhead: TimeInterval = 3600
    let start = Date(timeIntervalSince1970: 2_000_000_000)

    /// An event the server stamped `written` seconds into the run.
    func event(_ seq: Int, _ state: JobState = .running, written: TimeInterval) -> JobEvent {
        var event = fixtures.event(seq, state, fraction: state == .succeeded ? 1 : 0.1 * Double(seq))
        event.timestamp = start.addingTimeInterval(written + serverAhead)
        return event
    }

    /// This client's clock `seconds` into the run.
    func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    func snapshot(seq: Int, _ state: JobState = .running, written: TimeInterval) -> JobSnapshot {
        var snapshot = fixtures.snapshot(seq: seq, state, fraction: state == .succeeded ? 1 : 0.1 * Double(seq))
        snapshot.updatedAt = start.addingTimeInterval(written + serverAhead)
        return snapshot
    }

    func delivered(_ actions: [Action]) -> [(seq: Int, path: EventPath)] {
        actions.compactMap { if case .deliver(let e, let path, _) = $0 { (e.seq, path) } else { nil } }
    }

    func pushesProbe(_ actions: [Action], _ connection: Int) -> Bool {
        actions.contains(.schedule(.lagProbe(connection: connection), after: settings.lagProbeInterval))
    }

    /// An `auto` run whose WebSocket was refused for good (403), carried by the event stream, which
    /// delivered seq 2 on time at second 1. Returns the machine and the stream's connection.
    func streamCarrying() throws -> (TrackerStateMachine, Int) {
        var machine = TrackerStateMachine(mode: .auto, settings: settings)
        _ = machine.start()
        _ = machine.uploadAccepted(snapshot(seq: 1, .queued, written: 0), receivedAt: at(0))
        let refused = machine.socketEnded(connection: 1, .refused(status: 403))
        let c = try #require(refused.lazy.compactMap { if case .openStream(let c, _) = $0 { c } else { nil } }.first)
        _ = machine.streamOpened(connection: c)
        _ = machine.streamReceived(connection: c, [], receivedAt: at(0.5))
        let first = machine.streamReceived(connection: c, [event(2, written: 1)], receivedAt: at(1))
        #expect(pushesProbe(first, c), "the stream carries: it is watched")
        return (machine, c)
    }

    /// An `auto` run carried by its first WebSocket, which delivered seq 2 on time at second 1.
    func socketCarrying() -> TrackerStateMachine {
        var machine = TrackerStateMachine(mode: .auto, settings: settings)
        _ = machine.start()
        _ = machine.uploadAccepted(snapshot(seq: 1, .queued, written: 0), receivedAt: at(0))
        _ = machine.socketOpened(connection: 1)
        #expect(pushesProbe(machine.socketMessage(connection: 1, .event(event(2, written: 1)), receivedAt: at(1)), 1))
        return machine
    }

    @Test("ages are measured from the freshest arrival, so a skewed server clock does not matter")
    func skewedClocks() throws {
        var (machine, c) = try streamCarrying()
        // An hour of skew, 0.9 s late: fresh (within the 1 s bound); the probe is pushed back.
        #expect(pushesProbe(machine.streamReceived(connection: c, [event(3, written: 2)], receivedAt: at(2.9)), c))
        // 1.5 s late: stale; the probe is not pushed back.
        #expect(!pushesProbe(machine.streamReceived(connection: c, [event(4, written: 3)], receivedAt: at(4.5)), c))
    }

    @Test("a healthy WebSocket costs no poll: its fresh events and heartbeats keep pushing the probe back")
    func healthySocketNeverProbes() {
        var machine = socketCarrying()
        for second in 2...20 {
            let t = TimeInterval(second)
            let beat = machine.socketMessage(connection: 1, .heartbeat(Heartbeat(latestSeq: second, timestamp: at(t + serverAhead))), receivedAt: at(t + 0.05))
            #expect(!beat.contains(.poll) && pushesProbe(beat, 1))
            #expect(pushesProbe(machine.socketMessage(connection: 1, .event(event(second + 1, written: t)), receivedAt: at(t + 0.1)), 1))
        }
        _ = machine.socketMessage(connection: 1, .event(event(22, .succeeded, written: 21)), receivedAt: at(21))
        #expect(machine.metrics.pollsMade == 0)
        #expect(machine.strategy == .websocket)
    }

    @Test("a healthy event stream costs no poll through a quiet stretch: its heartbeats carry the server's time and push the probe back; a late one does not")
    func healthyStreamNeverProbes() throws {
        var (machine, c) = try streamCarrying()
        for tenth in 12...200 {
            let t = TimeInterval(tenth) / 10
            let beat = machine.streamReceived(
                connection: c, [], heartbeats: 1, heartbeatLatestSeq: 2, heartbeatTime: at(t + serverAhead), receivedAt: at(t + 0.05))
            #expect(!beat.contains(.poll) && pushesProbe(beat, c), "\(t)")
        }
        #expect(machine.metrics.pollsMade == 0)
        // A heartbeat written 1.5 s before it arrived (a trickling path): not fresh news.
        let late = machine.streamReceived(connection: c, [], heartbeats: 1, heartbeatLatestSeq: 2, heartbeatTime: at(19.6 + serverAhead), receivedAt: at(21.1))
        #expect(!pushesProbe(late, c))
        // An older server's heartbeat (no time) proves the stream alive but is no fresh news either.
        #expect(!pushesProbe(machine.streamReceived(connection: c, [], heartbeats: 1, heartbeatLatestSeq: 2, receivedAt: at(21.2)), c))
        _ = machine.streamReceived(connection: c, [event(3, .succeeded, written: 21.3)], receivedAt: at(21.35))
        #expect(machine.metrics.pollsMade == 0)
    }

    @Test("without fresh news the probe sends one hedged poll and schedules the next; a poll with nothing new keeps the stream")
    func probeWithNothingNew() throws {
        var (machine, c) = try streamCarrying()
        let probe = machine.timerFired(.lagProbe(connection: c))
        #expect(probe.contains(.poll))
        #expect(pushesProbe(probe, c))
        #expect(!machine.timerFired(.lagProbe(connection: c)).contains(.poll), "one poll out at a time")
        let answered = machine.pollResult(.snapshot(snapshot(seq: 2, written: 1)), receivedAt: at(2.6))
        #expect(!answered.contains { if case .schedule(.lagVerdict, _) = $0 { true } else { false } })
        #expect(machine.metrics.hedgedPolls == 1 && machine.metrics.pollsMade == 1)
        _ = machine.streamReceived(connection: c, [event(3, .succeeded, written: 3)], receivedAt: at(3))
        #expect(machine.strategy == .sse(afterWebSocket: TransportFailure(reason: .refused, status: 403, phase: .beforeFirstEvent)))
    }

    @Test("a trickling stream: the poll's news is shown at once; still sending but not delivering it a bound later, it is left: polling_fallback from sse, lagging")
    func laggingStream() throws {
        var (machine, c) = try streamCarrying()
        #expect(machine.timerFired(.lagProbe(connection: c)).contains(.poll))
        let answered = machine.pollResult(.snapshot(snapshot(seq: 6, written: 2.4)), receivedAt: at(2.5))
        #expect(delivered(answered).map(\.seq) == [6] && delivered(answered).first?.path == .polling)
        #expect(answered.contains(.schedule(.lagVerdict(connection: c), after: settings.maxLag)))
        // The stream still trickles: old events (not news) and heartbeats, never seq 6.
        #expect(delivered(machine.streamReceived(connection: c, [event(3, written: 1.5)], receivedAt: at(3))).isEmpty)
        _ = machine.streamReceived(connection: c, [], heartbeats: 1, heartbeatLatestSeq: 3, receivedAt: at(3.3))
        let verdict = machine.timerFired(.lagVerdict(connection: c))
        #expect(verdict.contains(.closeSocket(connection: c)))
        #expect(verdict.contains(.poll))
        #expect(!verdict.contains { if case .schedule(.streamReconnect, _) = $0 { true } else { false } }, "not retried in the run")
        #expect(machine.strategy == .pollingFallback(reason: .lagging, status: nil, phase: .midScan, from: .sse))
        // Later bytes of the closed stream are nothing; polling delivers the end once.
        #expect(machine.streamReceived(connection: c, [event(7, written: 3)], receivedAt: at(5)).isEmpty)
        let end = machine.pollResult(.snapshot(snapshot(seq: 9, .succeeded, written: 4)), receivedAt: at(4.1))
        #expect(delivered(end).map(\.seq) == [9])
        #expect(end.contains { if case .finish(.terminal) = $0 { true } else { false } })
        #expect(machine.strategy == .pollingFallback(reason: .lagging, status: nil, phase: .midScan, from: .sse))
        #expect(machine.metrics.streamFailures == 1)
    }

    @Test("a stream that delivers what the poll showed within the bound keeps carrying (the poll merely raced it)")
    func streamPaysInTime() throws {
        var (machine, c) = try streamCarrying()
        _ = machine.timerFired(.lagProbe(connection: c))
        _ = machine.pollResult(.snapshot(snapshot(seq: 3, written: 2.4)), receivedAt: at(2.5))
        let paid = machine.streamReceived(connection: c, [event(3, written: 2.4)], receivedAt: at(2.55))
        #expect(delivered(paid).isEmpty, "3 was already shown by the poll: not news again")
        #expect(paid.contains(.cancel(.lagVerdict(connection: c))))
        #expect(machine.timerFired(.lagVerdict(connection: c)).isEmpty)
        #expect(delivered(machine.streamReceived(connection: c, [event(4, written: 3)], receivedAt: at(3))).map(\.seq) == [4])
        _ = machine.streamReceived(connection: c, [event(5, .succeeded, written: 4)], receivedAt: at(4))
        #expect(machine.strategy == .sse(afterWebSocket: TransportFailure(reason: .refused, status: 403, phase: .beforeFirstEvent)))
        #expect(machine.metrics.streamFailures == 0)
    }

    @Test("a trickling WebSocket is left for the run (not reconnected): the event stream takes over; sse after websocket, lagging")
    func laggingSocket() throws {
        var machine = socketCarrying()
        // Frames keep coming, ever older: no fresh news, the probe is never pushed back.
        #expect(!pushesProbe(machine.socketMessage(connection: 1, .event(event(3, written: 1.2)), receivedAt: at(2.5)), 1))
        #expect(machine.timerFired(.lagProbe(connection: 1)).contains(.poll))
        let answered = machine.pollResult(.snapshot(snapshot(seq: 8, written: 2.9)), receivedAt: at(3))
        #expect(delivered(answered).map(\.seq) == [8])
        _ = machine.socketMessage(connection: 1, .heartbeat(Heartbeat(latestSeq: 3, timestamp: at(1.3 + serverAhead))), receivedAt: at(3.5))
        let verdict = machine.timerFired(.lagVerdict(connection: 1))
        #expect(verdict.contains(.closeSocket(connection: 1)))
        #expect(verdict.contains(.cancel(.reconnect)))
        let stream = try #require(verdict.lazy.compactMap { if case .openStream(let c, let after) = $0 { (c, after) } else { nil } }.first)
        #expect(stream.1 == 3, "the stream resumes after what was contiguous")
        #expect(machine.timerFired(.reconnect).isEmpty)
        _ = machine.streamOpened(connection: stream.0)
        _ = machine.streamReceived(connection: stream.0, [event(4, written: 1.8), event(9, written: 4)], receivedAt: at(4))
        _ = machine.streamReceived(connection: stream.0, [event(10, .succeeded, written: 5)], receivedAt: at(5))
        #expect(machine.strategy == .sse(afterWebSocket: TransportFailure(reason: .lagging, status: nil, phase: .midScan)))
        #expect(machine.metrics.socketFailures == 1 && machine.metrics.reconnects == 0)
    }

    @Test("a WebSocket that sends nothing at all after the poll found it behind is silent, not lagging: it may be reconnected")
    func silentIsNotLagging() {
        var machine = socketCarrying()
        _ = machine.timerFired(.lagProbe(connection: 1))
        _ = machine.pollResult(.snapshot(snapshot(seq: 4, written: 2.4)), receivedAt: at(2.5))
        let verdict = machine.timerFired(.lagVerdict(connection: 1))
        #expect(verdict.contains(.closeSocket(connection: 1)))
        #expect(verdict.contains(.schedule(.reconnect, after: .zero)))
        #expect(!verdict.contains(.cancel(.reconnect)))
        let stream = verdict.lazy.compactMap { if case .openStream(let c, _) = $0 { c } else { nil } }.first
        #expect(stream != nil, "the event stream carries while the socket reconnects")
        _ = machine.streamOpened(connection: stream ?? 0)
        _ = machine.streamReceived(connection: stream ?? 0, [event(5, .succeeded, written: 4)], receivedAt: at(4))
        #expect(machine.strategy == .sse(afterWebSocket: TransportFailure(reason: .silent, status: nil, phase: .midScan)))
    }

    @Test("a heartbeat naming a seq the connection has not delivered brings the probe forward (a grace for the frame behind it), once; the probe polls")
    func heartbeatAheadProbes() throws {
        func broughtForward(_ actions: [Action], _ connection: Int) -> Bool {
            actions.contains(.schedule(.lagProbe(connection: connection), after: settings.heartbeatAheadGrace))
        }
        var (machine, c) = try streamCarrying()
        let level = machine.streamReceived(connection: c, [], heartbeats: 1, heartbeatLatestSeq: 2, receivedAt: at(1.2))
        #expect(!level.contains(.poll) && !broughtForward(level, c))
        let ahead = machine.streamReceived(connection: c, [], heartbeats: 1, heartbeatLatestSeq: 4, receivedAt: at(1.4))
        #expect(!ahead.contains(.poll) && broughtForward(ahead, c), "no poll at once: seq 3 and 4 may be right behind the heartbeat")
        let again = machine.streamReceived(connection: c, [], heartbeats: 1, heartbeatLatestSeq: 4, receivedAt: at(1.6))
        #expect(!again.contains { if case .schedule(.lagProbe, _) = $0 { true } else { false } } && !again.contains(.poll), "not postponed again")
        #expect(machine.timerFired(.lagProbe(connection: c)).contains(.poll))
        #expect(machine.metrics.hedgedPolls == 1)

        // The frames right behind the heartbeat arrive fresh: the probe goes back to its usual delay, no poll.
        var socket = socketCarrying()
        let beat = socket.socketMessage(connection: 1, .heartbeat(Heartbeat(latestSeq: 4, timestamp: at(1.5 + serverAhead))), receivedAt: at(1.5))
        #expect(!beat.contains(.poll) && broughtForward(beat, 1))
        _ = socket.socketMessage(connection: 1, .event(event(3, written: 1.45)), receivedAt: at(1.52))
        #expect(pushesProbe(socket.socketMessage(connection: 1, .event(event(4, written: 1.48)), receivedAt: at(1.53)), 1))
        #expect(socket.metrics.pollsMade == 0)
    }

    @Test("a terminal a hedged poll shows ends the run at once: one terminal, the stream's own is not news; the carrier classifies it")
    func terminalFromHedgedPoll() throws {
        var (machine, c) = try streamCarrying()
        _ = machine.timerFired(.lagProbe(connection: c))
        let end = machine.pollResult(.snapshot(snapshot(seq: 5, .succeeded, written: 2.4)), receivedAt: at(2.5))
        #expect(delivered(end).map(\.seq) == [5])
        #expect(end.contains { if case .finish(.terminal) = $0 { true } else { false } })
        #expect(end.contains(.closeSocket(connection: c)))
        #expect(machine.streamReceived(connection: c, [event(5, .succeeded, written: 2.4)], receivedAt: at(9)).isEmpty)
        #expect(machine.timerFired(.lagVerdict(connection: c)).isEmpty)
        #expect(machine.strategy == .sse(afterWebSocket: TransportFailure(reason: .refused, status: 403, phase: .beforeFirstEvent)))
    }

    @Test("a forced transport is never probed nor left for lag (--strategy sse, --strategy websocket)")
    func forcedTransportsAreNotWatched() throws {
        var forced = TrackerStateMachine(mode: .sse, settings: settings)
        let accepted = forced.uploadAccepted(snapshot(seq: 1, .queued, written: 0), receivedAt: at(0))
        let c = try #require(accepted.lazy.compactMap { if case .openStream(let c, _) = $0 { c } else { nil } }.first)
        _ = forced.streamOpened(connection: c)
        #expect(!pushesProbe(forced.streamReceived(connection: c, [event(2, written: 1)], receivedAt: at(1)), c))
        #expect(forced.timerFired(.lagProbe(connection: c)).isEmpty)
        var socket = TrackerStateMachine(mode: .websocket, settings: settings)
        _ = socket.start()
        _ = socket.uploadAccepted(snapshot(seq: 1, .queued, written: 0), receivedAt: at(0))
        _ = socket.socketOpened(connection: 1)
        #expect(!pushesProbe(socket.socketMessage(connection: 1, .event(event(2, written: 1)), receivedAt: at(1)), 1))
    }
}
