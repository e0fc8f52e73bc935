import Foundation
import RunModel
import ScanClient
import ScanProtocol
import Testing

/// Pure transitions of the hybrid tracker: no sockets, no clocks.
@Suite("TrackerStateMachine")
struct TrackerStateMachineTests {
    let fixtures = TrackerFixtures()
    var jobId: UUID { fixtures.jobId }

    func event(_ seq: Int, _ state: JobState = .running, fraction: Double = 0.5) -> JobEvent { fixtures.event(seq, state, fraction: fraction) }

    func snapshot(seq: Int, _ state: JobState = .running, fraction: Double = 0.5) -> JobSnapshot {
        fixtures.snapshot(seq: seq, state, fraction: fraction)
    }

    /// A machine whose run started and whose upload was accepted (seq 1, queued).
    func accepted(_ mode: TrackerMode = .auto) -> TrackerStateMachine {
        var machine = TrackerStateMachine(mode: mode, eventStreamAvailable: false)
        _ = machine.start()
        _ = machine.uploadAccepted(snapshot(seq: 1, .queued, fraction: 0))
        return machine
    }

    /// An accepted auto machine whose first socket is open.
    func streaming() -> TrackerStateMachine {
        var machine = accepted()
        _ = machine.socketOpened(connection: 1)
        return machine
    }

    func delivered(_ actions: [TrackerStateMachine.Action]) -> [Int] {
        actions.compactMap { if case .deliver(let e, _, _) = $0 { e.seq } else { nil } }
    }

    func finishes(_ actions: [TrackerStateMachine.Action]) -> [TrackerEnding] {
        actions.compactMap { if case .finish(let ending) = $0 { ending } else { nil } }
    }

    @Test("auto opens the socket before the upload is accepted (failure mode 1, 2, 3: order does not matter)")
    func socketOpensAtStart() {
        var machine = TrackerStateMachine(mode: .auto, eventStreamAvailable: false)
        #expect(machine.start() == [.openSocket(connection: 1, after: 0)])
    }

    @Test("an upgrade 404 that races ahead of the upload is not a failure; the socket reopens after acceptance")
    func earlyUpgradeRace() {
        var machine = TrackerStateMachine(mode: .auto, eventStreamAvailable: false)
        _ = machine.start()
        let ended = machine.socketEnded(connection: 1, .refused(status: 404))
        #expect(!ended.contains { if case .poll = $0 { true } else { false } })
        let accepted = machine.uploadAccepted(snapshot(seq: 1, .queued, fraction: 0))
        #expect(accepted.contains(.openSocket(connection: 2, after: 1)))
        #expect(machine.metrics.socketFailures == 0)
    }

    @Test("the same seq from both paths is accepted once; an older seq is never delivered; the fraction never goes backwards")
    func mergeDedupesAndIsMonotonic() {
        var machine = streaming()
        let first = machine.socketMessage(connection: 1, .event(event(5, fraction: 0.6)))
        #expect(delivered(first) == [5])
        // a poll result with an older seq: not news (it only fills the contiguity)
        #expect(delivered(machine.pollResult(.snapshot(snapshot(seq: 3, fraction: 0.3)))).isEmpty)
        // the same seq again from either path: ignored
        #expect(delivered(machine.socketMessage(connection: 1, .event(event(5, fraction: 0.6)))).isEmpty)
        #expect(delivered(machine.pollResult(.snapshot(snapshot(seq: 5, fraction: 0.6))) ).isEmpty)
        let next = machine.socketMessage(connection: 1, .event(event(6, fraction: 0.7)))
        #expect(delivered(next) == [6])
        #expect(next.compactMap { if case .deliver(_, _, let f) = $0 { f } else { nil } } == [0.7])
    }

    @Test("the terminal state is reported exactly once and closes every socket and timer (failure mode 21)")
    func terminalOnce() {
        var machine = streaming()
        let done = machine.socketMessage(connection: 1, .event(event(9, .succeeded, fraction: 1)))
        #expect(finishes(done).count == 1)
        #expect(done.contains(.closeSocket(connection: 1)))
        #expect(done.contains(.cancel(.poll)))
        #expect(done.contains(.cancel(.reconnect)))
        #expect(machine.pollResult(.snapshot(snapshot(seq: 9, .succeeded, fraction: 1))).isEmpty)
        #expect(machine.socketEnded(connection: 1, .closed(code: 1000)).isEmpty)
        #expect(machine.timerFired(.poll).isEmpty)
        #expect(machine.strategy == .websocket)
    }

    @Test("no frame 2.5 s after acceptance starts polling in parallel; the socket keeps trying (failure mode 5, 15)")
    func firstFrameDeadline() {
        var machine = TrackerStateMachine(mode: .auto, eventStreamAvailable: false)
        _ = machine.start()
        let accepted = machine.uploadAccepted(snapshot(seq: 1, .queued, fraction: 0))
        #expect(accepted.contains(.schedule(.firstFrameDeadline, after: .milliseconds(2500))))
        #expect(accepted.contains(.schedule(.socketGiveUp, after: .seconds(10))))
        let fired = machine.timerFired(.firstFrameDeadline)
        #expect(fired.contains(.poll))
        #expect(fired.contains(.schedule(.poll, after: .seconds(2))))
        #expect(!fired.contains { if case .closeSocket = $0 { true } else { false } })
        let done = machine.pollResult(.snapshot(snapshot(seq: 7, .succeeded, fraction: 1)))
        #expect(finishes(done).count == 1)
        #expect(machine.strategy == .pollingFallback(reason: .connectTimeout, status: nil, phase: .beforeFirstEvent))
    }

    @Test("an open but silent socket is dead after the silence timeout: reconnect at once, poll meanwhile (failure mode 6, 9)")
    func silentSocket() {
        var machine = streaming()
        _ = machine.socketMessage(connection: 1, .event(event(2)))
        let dead = machine.timerFired(.silence(connection: 1))
        #expect(dead.contains(.closeSocket(connection: 1)))
        #expect(dead.contains(.poll))
        #expect(dead.contains(.schedule(.reconnect, after: .zero)))
        let reconnect = machine.timerFired(.reconnect)
        #expect(reconnect == [.openSocket(connection: 2, after: 2), .schedule(.connectDeadline(connection: 2), after: .seconds(5))])
        #expect(machine.metrics.reconnects == 1)
    }

    @Test("a socket that heals stops polling; the WebSocket carrying the end is websocket_reconnected")
    func reconnectHeals() {
        var machine = streaming()
        _ = machine.socketMessage(connection: 1, .event(event(2)))
        _ = machine.socketEnded(connection: 1, .closed(code: nil))
        _ = machine.timerFired(.reconnect)
        _ = machine.socketOpened(connection: 2)
        let healed = machine.socketMessage(connection: 2, .heartbeat(Heartbeat(latestSeq: 4, timestamp: Date())))
        #expect(healed.contains(.cancel(.poll)))
        _ = machine.socketMessage(connection: 2, .event(event(3)))
        let done = machine.socketMessage(connection: 2, .event(event(4, .succeeded, fraction: 1)))
        #expect(finishes(done).count == 1)
        #expect(machine.strategy == .websocketReconnected)
    }

    @Test("a normal close without a terminal event is a drop, not an ending (failure mode 21)")
    func normalCloseWithoutTerminal() {
        var machine = streaming()
        _ = machine.socketMessage(connection: 1, .event(event(2)))
        let closed = machine.socketEnded(connection: 1, .closed(code: 1000))
        #expect(finishes(closed).isEmpty)
        #expect(closed.contains(.poll))
        _ = machine.pollResult(.snapshot(snapshot(seq: 6, .succeeded, fraction: 1)))
        #expect(machine.strategy == .pollingFallback(reason: .dropped, status: nil, phase: .midScan))
    }

    @Test("backoff: first retry immediate, then full jitter within min(30 s, 2ⁿ s)")
    func backoffBounds() {
        let settings = TrackerSettings()
        var backoff = ReconnectBackoff(base: settings.backoffBase, cap: settings.backoffCap, seed: 42)
        #expect(backoff.delay(attempt: 0) == .zero)
        for attempt in 1...10 {
            let ceiling = min(30.0, pow(2.0, Double(attempt)))
            for _ in 0..<50 {
                let delay = backoff.delay(attempt: attempt)
                #expect(delay >= .zero && delay <= .milliseconds(Int64(ceiling * 1000)))
            }
        }
        // jitter after the cap: at attempt 10 delays spread over 0…30 s instead of piling up at the cap
        let late = (0..<200).map { _ in backoff.delay(attempt: 10) }
        #expect(late.filter { $0 < .seconds(15) }.count > 50)
    }

    @Test("after 5 socket failures the run stays on polling (failure mode 9)")
    func giveUpAfterFiveFailures() {
        var machine = accepted(.auto)
        for connection in 1...5 {
            let ended = machine.socketEnded(connection: connection, .unreachable)
            if connection < 5 {
                #expect(ended.contains { if case .schedule(.reconnect, _) = $0 { true } else { false } })
                _ = machine.timerFired(.reconnect)
            } else {
                    }
        }
        #expect(machine.timerFired(.reconnect).isEmpty)
        #expect(machine.metrics.socketFailures == 5)
        _ = machine.pollResult(.snapshot(snapshot(seq: 2)))
        #expect(machine.timerFired(.poll).contains(.poll))
    }

    @Test("401 on the upgrade is not retried; forced websocket then ends unauthorized")
    func unauthorizedUpgrade() {
        var machine = accepted(.websocket)
        let ended = machine.socketEnded(connection: 1, .refused(status: 401))
        #expect(finishes(ended) == [.unauthorized(status: 401)])
    }

    @Test("an upgrade refused after the first-frame deadline is recorded as the refusal, not as a connect timeout")
    func refusalAfterDeadline() {
        var machine = accepted(.auto)
        #expect(machine.timerFired(.firstFrameDeadline).contains(.poll))
        _ = machine.pollResult(.snapshot(snapshot(seq: 3, .running, fraction: 0.3)))
        _ = machine.socketEnded(connection: 1, .refused(status: 403))
        _ = machine.pollResult(.snapshot(snapshot(seq: 8, .succeeded, fraction: 1)))
        // The phase stays what it was at the deadline: the socket never carried an event.
        #expect(machine.strategy == .pollingFallback(reason: .refused, status: 403, phase: .beforeFirstEvent))
    }

    @Test("giving up a socket that never sent a frame counts as a socket failure; an abandoned one is not counted twice")
    func giveUpCounts() {
        var machine = accepted(.auto)
        _ = machine.timerFired(.firstFrameDeadline)
        #expect(machine.metrics.socketFailures == 0)
        let gaveUp = machine.timerFired(.socketGiveUp)
        #expect(gaveUp.contains(.closeSocket(connection: 1)))
        #expect(machine.metrics.socketFailures == 1)
        var refused = accepted(.auto)
        _ = refused.socketEnded(connection: 1, .refused(status: 503))
        _ = refused.timerFired(.socketGiveUp)
        #expect(refused.metrics.socketFailures == 1)
    }

    @Test("a connect timeout stays one when the late socket opens instead of being refused")
    func lateOpenKeepsTimeout() {
        var machine = accepted(.auto)
        _ = machine.timerFired(.firstFrameDeadline)
        _ = machine.socketOpened(connection: 1)
        _ = machine.socketEnded(connection: 1, .closed(code: nil))
        _ = machine.pollResult(.snapshot(snapshot(seq: 8, .succeeded, fraction: 1)))
        #expect(machine.strategy == .pollingFallback(reason: .connectTimeout, status: nil, phase: .beforeFirstEvent))
    }

    @Test("a 503 upgrade goes straight to polling, recorded as refused 503 before the first event")
    func refused503() {
        var machine = accepted(.auto)
        let ended = machine.socketEnded(connection: 1, .refused(status: 503))
        #expect(ended.contains(.poll))
        #expect(ended.contains(.cancel(.reconnect)))
        #expect(machine.timerFired(.reconnect).isEmpty)
        _ = machine.pollResult(.snapshot(snapshot(seq: 8, .succeeded, fraction: 1)))
        #expect(machine.strategy == .pollingFallback(reason: .refused, status: 503, phase: .beforeFirstEvent))
    }

    @Test(
        "a 404 or 426 upgrade once the job exists is not retried (found by the fault campaign: it was retried 4 times, a probe each)",
        arguments: [404, 426])
    func finalRefusalAfterAcceptance(status: Int) {
        var machine = accepted(.auto)
        // The first refusal may be the upgrade racing ahead of the upload: one free retry.
        #expect(machine.socketEnded(connection: 1, .refused(status: status)).contains(.openSocket(connection: 2, after: 1)))
        let ended = machine.socketEnded(connection: 2, .refused(status: status))
        #expect(ended.contains(.poll))
        #expect(ended.contains(.cancel(.reconnect)))
        #expect(machine.timerFired(.reconnect).isEmpty)
        _ = machine.pollResult(.snapshot(snapshot(seq: 8, .succeeded, fraction: 1)))
        #expect(machine.metrics.socketFailures == 1)
        #expect(machine.metrics.socketAttempts == 2)
        #expect(machine.strategy == .pollingFallback(reason: .refused, status: status, phase: .beforeFirstEvent))
    }

    @Test("a transient refusal (502) is retried with backoff while polling carries the run")
    func transientRefusalRetried() {
        var machine = accepted(.auto)
        _ = machine.socketEnded(connection: 1, .refused(status: 502))
        #expect(machine.timerFired(.reconnect) == [.openSocket(connection: 2, after: 1)])
    }

    @Test("failed polls (500, resets) keep polling; 404 means the job is lost (failure mode 11, 19)")
    func pollErrors() {
        var machine = TrackerStateMachine(mode: .polling)
        #expect(machine.start().isEmpty)
        let accepted = machine.uploadAccepted(snapshot(seq: 1, .queued, fraction: 0))
        #expect(accepted.contains(.poll))
        #expect(finishes(machine.pollResult(.httpError(status: 500, nil))).isEmpty)
        #expect(finishes(machine.pollResult(.transportError("reset"))).isEmpty)
        #expect(machine.metrics.pollErrors == 2)
        #expect(finishes(machine.pollResult(.httpError(status: 404, nil))) == [.jobLost])
    }

    @Test("a typed failed state ends the run as a failure, whatever its message says (failure mode 12, 13)")
    func typedFailure() {
        var machine = accepted(.polling)
        let failed = JobEvent(
            jobId: jobId, seq: 4, state: .failed, stage: .done, fraction: 0.4, timestamp: Date(),
            error: ErrorBody(code: .scanFailed, message: "everything succeeded", retryable: false))
        var s = snapshot(seq: 4, .failed, fraction: 0.4)
        s.error = failed.error
        let done = machine.pollResult(.snapshot(s))
        guard case .terminal(let event) = finishes(done).first else {
            Issue.record("no terminal ending")
            return
        }
        #expect(event.state == .failed)
        #expect(machine.strategy == .polling)
    }

    @Test("timeout and interrupt end the run once, as themselves")
    func stopWatching() {
        var machine = TrackerStateMachine(mode: .auto, eventStreamAvailable: false)
        _ = machine.start()
        #expect(finishes(machine.deadlineExceeded()) == [.timedOut])
        #expect(machine.interrupted().isEmpty)
    }
}
