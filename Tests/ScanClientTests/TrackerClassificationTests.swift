import Foundation
import RunModel
import ScanClient
import ScanProtocol
import Testing

/// Issue 12 §2: the strategy is classified from what happened, for every ending; §4: reconnects
/// have a connect deadline; §6: a late heartbeat sends one hedged poll.
@Suite("Tracker classification, hedging and reconnect deadlines")
struct TrackerClassificationTests {
    let fixtures = TrackerFixtures()
    var jobId: UUID { fixtures.jobId }

    func event(_ seq: Int, _ state: JobState = .running, fraction: Double = 0.5) -> JobEvent { fixtures.event(seq, state, fraction: fraction) }

    func snapshot(seq: Int, _ state: JobState = .running, fraction: Double = 0.5) -> JobSnapshot {
        fixtures.snapshot(seq: seq, state, fraction: fraction)
    }

    func accepted(_ mode: TrackerMode = .auto, settings: TrackerSettings = .init()) -> TrackerStateMachine {
        var machine = TrackerStateMachine(mode: mode, settings: settings, eventStreamAvailable: false)
        _ = machine.start()
        _ = machine.uploadAccepted(snapshot(seq: 1, .queued, fraction: 0))
        return machine
    }

    func finishes(_ actions: [TrackerStateMachine.Action]) -> [TrackerEnding] {
        actions.compactMap { if case .finish(let ending) = $0 { ending } else { nil } }
    }

    func polls(_ actions: [TrackerStateMachine.Action]) -> Int { actions.filter { $0 == .poll }.count }

    // MARK: §2 — endings without a terminal event

    @Test("timed out while polling carried the run (no socket ever opened): polling fallback, not websocket")
    func timedOutWhilePolling() {
        var machine = accepted()
        _ = machine.timerFired(.firstFrameDeadline)
        _ = machine.pollResult(.snapshot(snapshot(seq: 3)))
        #expect(finishes(machine.deadlineExceeded()) == [.timedOut])
        #expect(machine.strategy == .pollingFallback(reason: .connectTimeout, status: nil, phase: .beforeFirstEvent))
    }

    @Test("timed out while the socket carried the run: websocket")
    func timedOutOnSocket() {
        var machine = accepted()
        _ = machine.socketOpened(connection: 1)
        _ = machine.socketMessage(connection: 1, .event(event(2)))
        _ = machine.deadlineExceeded()
        #expect(machine.strategy == .websocket)
    }

    @Test("interrupted before any frame or poll: nothing carried the run")
    func interruptedEarly() {
        var machine = accepted()
        #expect(finishes(machine.interrupted()) == [.interrupted])
        #expect(machine.strategy == nil)
    }

    @Test("job lost while polling after the socket dropped mid-scan: polling fallback (dropped, mid-scan)")
    func jobLostWhilePolling() {
        var machine = accepted()
        _ = machine.socketOpened(connection: 1)
        _ = machine.socketMessage(connection: 1, .event(event(2)))
        _ = machine.socketEnded(connection: 1, .closed(code: nil))
        #expect(finishes(machine.pollResult(.httpError(status: 404, nil))) == [.jobLost])
        #expect(machine.strategy == .pollingFallback(reason: .dropped, status: nil, phase: .midScan))
    }

    @Test("token refused on the upgrade and then on the poll: polling fallback with the refusal, no socket ever opened")
    func tokenRefused() {
        var machine = accepted()
        _ = machine.socketEnded(connection: 1, .refused(status: 403))
        #expect(finishes(machine.pollResult(.httpError(status: 403, nil))) == [.unauthorized(status: 403)])
        #expect(machine.strategy == .pollingFallback(reason: .refused, status: 403, phase: .beforeFirstEvent))
    }

    @Test("--strategy websocket whose upgrade is refused (the socket never carried the job): not classified as websocket")
    func forcedSocketUnavailable() {
        var machine = accepted(.websocket)
        _ = machine.socketEnded(connection: 1, .refused(status: 401))
        #expect(machine.finished)
        #expect(machine.strategy == nil)
    }

    @Test("a terminal upload (PUT) snapshot with no socket frame is not websocket")
    func terminalUploadSnapshot() {
        var machine = TrackerStateMachine(mode: .auto, eventStreamAvailable: false)
        _ = machine.start()
        let done = machine.uploadAccepted(snapshot(seq: 7, .succeeded, fraction: 1))
        #expect(finishes(done).count == 1)
        #expect(machine.strategy == nil)
    }

    @Test("a poll answer that beats a healthy reconnected socket to the end does not make it polling")
    func pollWinsRaceAgainstCarryingSocket() {
        var machine = accepted()
        _ = machine.socketOpened(connection: 1)
        _ = machine.socketMessage(connection: 1, .event(event(2)))
        _ = machine.socketEnded(connection: 1, .closed(code: nil))  // polls start, a poll is in flight
        _ = machine.timerFired(.reconnect)
        _ = machine.socketOpened(connection: 2)
        _ = machine.socketMessage(connection: 2, .event(event(3)))  // healed: the socket carries the job
        _ = machine.pollResult(.snapshot(snapshot(seq: 4, .succeeded, fraction: 1)))  // the in-flight poll answers first
        #expect(machine.finished)
        #expect(machine.strategy == .websocketReconnected)
    }

    // MARK: §4 — reconnect deadline

    @Test("after the first frame a reconnect whose upgrade is never answered fails at its deadline; forced websocket ends")
    func reconnectDeadline() {
        var machine = accepted(.websocket, settings: TrackerSettings(maxSocketFailures: 2))
        _ = machine.socketOpened(connection: 1)
        _ = machine.socketMessage(connection: 1, .event(event(2)))
        _ = machine.socketEnded(connection: 1, .closed(code: nil))
        let reopened = machine.timerFired(.reconnect)
        #expect(reopened.contains(.schedule(.connectDeadline(connection: 2), after: TrackerSettings.defaultReconnectDeadline)))
        let expired = machine.timerFired(.connectDeadline(connection: 2))
        #expect(expired.contains(.closeSocket(connection: 2)))
        #expect(finishes(expired) == [.socketUnavailable(.connectTimeout)])
    }

    @Test("a reconnect that opens in time cancels its deadline")
    func reconnectDeadlineCancelled() {
        var machine = accepted()
        _ = machine.socketOpened(connection: 1)
        _ = machine.socketMessage(connection: 1, .event(event(2)))
        _ = machine.socketEnded(connection: 1, .closed(code: nil))
        _ = machine.timerFired(.reconnect)
        #expect(machine.socketOpened(connection: 2).contains(.cancel(.connectDeadline(connection: 2))))
        #expect(machine.timerFired(.connectDeadline(connection: 2)).isEmpty)
    }

    // MARK: §5 — Retry-After

    @Test("a poll answered with Retry-After waits for it, bounded, never below the poll interval")
    func retryAfterHonoured() {
        var machine = accepted(.polling, settings: TrackerSettings(maxRetryAfter: .seconds(30)))
        #expect(machine.pollResult(.throttled(status: 503, retryAfter: .seconds(7))) == [.schedule(.poll, after: .seconds(7))])
        #expect(machine.timerFired(.poll).contains(.poll))
        #expect(machine.pollResult(.throttled(status: 429, retryAfter: .seconds(3600))) == [.schedule(.poll, after: .seconds(30))])
        _ = machine.timerFired(.poll)
        #expect(machine.pollResult(.throttled(status: 503, retryAfter: .zero)) == [.schedule(.poll, after: .seconds(2))])
        #expect(machine.metrics.pollErrors == 3)
        #expect(!machine.finished)
    }

    @Test("Retry-After: delay-seconds and HTTP-date; junk, negatives and absence are ignored")
    func retryAfterParsing() {
        let now = Date(timeIntervalSince1970: 1_000_000_000)
        #expect(RetryAfter.parse("5", now: now) == .seconds(5))
        #expect(RetryAfter.parse(" 0 ", now: now) == .zero)
        #expect(RetryAfter.parse("Sun, 09 Sep 2001 01:46:50 GMT", now: now) == .seconds(10))
        #expect(RetryAfter.parse("-3", now: now) == nil)
        #expect(RetryAfter.parse("soon", now: now) == nil)
        #expect(RetryAfter.parse(nil, now: now) == nil)
        #expect(RetryAfter.parse("99999999999999999999", now: now) == nil)
    }

    // MARK: §6 — hedged poll on a late heartbeat

    func hedging() -> TrackerStateMachine {
        var machine = accepted(settings: TrackerSettings().adapted(toHeartbeat: 1))
        _ = machine.socketOpened(connection: 1)
        return machine
    }

    @Test("a healthy socket costs no request: every heartbeat reschedules the late-heartbeat check, nothing polls")
    func healthySocketNoPoll() {
        var machine = hedging()
        #expect(machine.socketMessage(connection: 1, .event(event(2))).contains(.schedule(.heartbeatLate(connection: 1), after: .milliseconds(1500))))
        for seq in 3...6 {
            let actions = machine.socketMessage(connection: 1, .event(event(seq)))
            #expect(polls(actions) == 0)
            let beat = machine.socketMessage(connection: 1, .heartbeat(Heartbeat(latestSeq: seq, timestamp: Date())))
            #expect(beat.contains(.schedule(.heartbeatLate(connection: 1), after: .milliseconds(1500))))
            #expect(polls(beat) == 0)
        }
        _ = machine.socketMessage(connection: 1, .event(event(7, .succeeded, fraction: 1)))
        #expect(machine.metrics.pollsMade == 0)
        #expect(machine.strategy == .websocket)
    }

    @Test("a late heartbeat sends one hedged poll; news the socket did not deliver closes it, polling carries on")
    func lateHeartbeatFindsNews() {
        var machine = hedging()
        _ = machine.socketMessage(connection: 1, .event(event(2)))
        #expect(machine.timerFired(.heartbeatLate(connection: 1)) == [.poll])
        #expect(machine.timerFired(.heartbeatLate(connection: 1)).isEmpty)  // one hedge at a time
        let answered = machine.pollResult(.snapshot(snapshot(seq: 4)))
        // the news is shown at once; the socket gets a margin to prove it is only slow
        #expect(answered.contains { if case .deliver(let e, .polling, _) = $0 { e.seq == 4 } else { false } })
        #expect(answered.contains(.schedule(.hedgeVerdict(connection: 1), after: .milliseconds(500))))
        #expect(!answered.contains(.closeSocket(connection: 1)))
        let verdict = machine.timerFired(.hedgeVerdict(connection: 1))
        #expect(verdict.contains(.closeSocket(connection: 1)))
        #expect(verdict.contains(.schedule(.reconnect, after: .zero)))
        #expect(verdict.contains(.poll))
        _ = machine.pollResult(.snapshot(snapshot(seq: 9, .succeeded, fraction: 1)))
        #expect(machine.strategy == .pollingFallback(reason: .silent, status: nil, phase: .midScan))
    }

    @Test("a socket that sends a frame while the hedged poll is out is alive, even if the poll has news")
    func lateHeartbeatButSocketAnswers() {
        var machine = hedging()
        _ = machine.socketMessage(connection: 1, .event(event(2)))
        _ = machine.timerFired(.heartbeatLate(connection: 1))
        _ = machine.socketMessage(connection: 1, .heartbeat(Heartbeat(latestSeq: 3, timestamp: Date())))
        let answered = machine.pollResult(.snapshot(snapshot(seq: 3)))
        #expect(!answered.contains(.closeSocket(connection: 1)))
        #expect(machine.metrics.socketFailures == 0)
    }

    @Test("a socket the hedged poll found behind that sends a frame before the verdict is kept (a stalled process, not a dead socket)")
    func suspectSocketAnswers() {
        var machine = hedging()
        _ = machine.socketMessage(connection: 1, .event(event(2)))
        _ = machine.timerFired(.heartbeatLate(connection: 1))
        _ = machine.pollResult(.snapshot(snapshot(seq: 4)))
        let late = machine.socketMessage(connection: 1, .event(event(3)))
        #expect(late.contains(.cancel(.hedgeVerdict(connection: 1))))
        #expect(machine.timerFired(.hedgeVerdict(connection: 1)).isEmpty)
        #expect(machine.metrics.socketFailures == 0)
        _ = machine.socketMessage(connection: 1, .event(event(5, .succeeded, fraction: 1)))
        #expect(machine.strategy == .websocket)
    }

    @Test("a hedged poll with nothing new keeps the socket")
    func lateHeartbeatNothingNew() {
        var machine = hedging()
        _ = machine.socketMessage(connection: 1, .event(event(2)))
        _ = machine.timerFired(.heartbeatLate(connection: 1))
        let answered = machine.pollResult(.snapshot(snapshot(seq: 2)))
        #expect(!answered.contains(.closeSocket(connection: 1)))
        #expect(machine.metrics.socketFailures == 0)
        // still no frame: ask again a margin later (not at once, not never)
        #expect(answered.contains(.schedule(.heartbeatLate(connection: 1), after: .milliseconds(500))))
        #expect(machine.timerFired(.heartbeatLate(connection: 1)) == [.poll])
        #expect(machine.pollResult(.snapshot(snapshot(seq: 2))).contains(.schedule(.heartbeatLate(connection: 1), after: .milliseconds(500))))
        _ = machine.socketMessage(connection: 1, .event(event(3, .succeeded, fraction: 1)))
        #expect(machine.strategy == .websocket)
    }

    @Test("without a known heartbeat interval nothing is hedged")
    func noHeartbeatNoHedge() {
        var machine = accepted()
        _ = machine.socketOpened(connection: 1)
        let actions = machine.socketMessage(connection: 1, .event(event(2)))
        #expect(!actions.contains { if case .schedule(.heartbeatLate, _) = $0 { true } else { false } })
    }
}
