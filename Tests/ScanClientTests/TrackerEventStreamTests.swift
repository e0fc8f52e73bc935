import Foundation
import RunModel
import ScanClient
import ScanProtocol
import Testing

/// The ladder's middle step, Server-Sent Events, as pure transitions: when the stream takes over,
/// how its failures hand over to polling, and how the run is classified.
@Suite("Tracker event stream (SSE)")
struct TrackerEventStreamTests {
    typealias Action = TrackerStateMachine.Action
    let fixtures = TrackerFixtures()

    func snapshot(seq: Int, _ state: JobState = .running) -> JobSnapshot { fixtures.snapshot(seq: seq, state) }

    func delivered(_ actions: [Action]) -> [(Int, EventPath)] {
        actions.compactMap { if case .deliver(let e, let path, _) = $0 { (e.seq, path) } else { nil } }
    }

    func opensStream(_ actions: [Action]) -> (connection: Int, after: Int)? {
        actions.lazy.compactMap { if case .openStream(let c, let a) = $0 { (c, a) } else { nil } }.first
    }

    func polls(_ actions: [Action]) -> Bool { actions.contains(.poll) }

    /// An auto run whose upload was accepted and whose WebSocket was then refused with `status`
    /// (a proxy that blocks upgrades: the probe says 403, or the server's plain answer 426).
    /// A 426 on the socket opened before acceptance counts as the upgrade racing the upload: the
    /// socket is reopened once, and its refusal is the failure.
    func refusedWebSocket(_ status: Int = 426) -> (TrackerStateMachine, [Action]) {
        var machine = TrackerStateMachine(mode: .auto)
        _ = machine.start()
        _ = machine.uploadAccepted(snapshot(seq: 1, .queued))
        var actions = machine.socketEnded(connection: 1, .refused(status: status))
        if actions.contains(.openSocket(connection: 2, after: 1)) { actions = machine.socketEnded(connection: 2, .refused(status: status)) }
        return (machine, actions)
    }

    @Test("a shared socket subscribes only after the upload: its first refusal is a failure (no race retry), the stream opens at once")
    func sharedSocketRefusalIsNotARace() throws {
        var machine = TrackerStateMachine(mode: .auto, socketWaitsForUpload: true)
        _ = machine.start()
        _ = machine.uploadAccepted(snapshot(seq: 1, .queued))
        let actions = machine.socketEnded(connection: 1, .refused(status: nil))
        #expect(!actions.contains { if case .openSocket = $0 { true } else { false } }, "\(actions)")
        #expect(opensStream(actions)?.after == 1)
        #expect(machine.metrics.socketFailures == 1)
        // The same refusal without the flag is taken for the upgrade racing the upload: reopened once.
        var racing = TrackerStateMachine(mode: .auto)
        _ = racing.start()
        _ = racing.uploadAccepted(snapshot(seq: 1, .queued))
        #expect(racing.socketEnded(connection: 1, .refused(status: nil)).contains(.openSocket(connection: 2, after: 1)))
    }

    @Test("a refused upgrade opens the event stream at once (resuming after what was seen), not polling")
    func refusedUpgradeTriesTheStream() throws {
        let (machine, actions) = refusedWebSocket()
        let open = try #require(opensStream(actions))
        #expect(open.after == 1)
        #expect(!polls(actions))
        #expect(actions.contains(.schedule(.streamFirstByte(connection: open.connection), after: machine.settings.firstFrameDeadline)))
        #expect(machine.metrics.streamAttempts == 1)
    }

    @Test("the stream carries the run: events on the sse path, one terminal, classified sse after the WebSocket's refusal")
    func streamCarriesTheRun() throws {
        var (machine, actions) = refusedWebSocket(403)
        let c = try #require(opensStream(actions)).connection
        _ = machine.streamOpened(connection: c)
        let opening = machine.streamReceived(connection: c, [])
        #expect(opening.contains(.cancel(.streamFirstByte(connection: c))))
        let middle = machine.streamReceived(connection: c, [fixtures.event(2), fixtures.event(3)])
        #expect(delivered(middle).map(\.0) == [2, 3])
        #expect(delivered(middle).allSatisfy { $0.1 == .sse })
        // An older event (a replay) is not news.
        #expect(delivered(machine.streamReceived(connection: c, [fixtures.event(2)])).isEmpty)
        let end = machine.streamReceived(connection: c, [fixtures.event(4, .succeeded, fraction: 1)])
        #expect(end.contains { if case .finish(.terminal) = $0 { true } else { false } })
        #expect(end.contains(.closeSocket(connection: c)))
        #expect(machine.strategy == .sse(afterWebSocket: TransportFailure(reason: .refused, status: 403, phase: .beforeFirstEvent)))
        #expect(machine.metrics.eventsByPath[.sse] == 3)
    }

    @Test("a stream that delivers no byte in time is buffered: given up for the run, polling carries it")
    func bufferedStreamFallsToPolling() throws {
        var (machine, actions) = refusedWebSocket()
        let c = try #require(opensStream(actions)).connection
        let fired = machine.timerFired(.streamFirstByte(connection: c))
        #expect(fired.contains(.closeSocket(connection: c)))
        #expect(polls(fired))
        #expect(!fired.contains { if case .schedule(.streamReconnect, _) = $0 { true } else { false } })
        #expect(machine.strategy == .pollingFallback(reason: .buffered, status: nil, phase: .beforeFirstEvent, from: .sse))
        // Given up: a later WebSocket failure does not open it again.
        #expect(opensStream(machine.timerFired(.socketGiveUp)) == nil)
    }

    @Test("the first-byte deadline of a stream that already sent its opening is stale")
    func firstByteDeadlineAfterBytes() throws {
        var (machine, actions) = refusedWebSocket()
        let c = try #require(opensStream(actions)).connection
        _ = machine.streamOpened(connection: c)
        _ = machine.streamReceived(connection: c, [])
        #expect(machine.timerFired(.streamFirstByte(connection: c)).isEmpty)
    }

    @Test("a stream dropped mid-scan: polling at once, a reconnect with backoff resumes after the contiguous seq and stops polling")
    func droppedStreamReconnects() throws {
        var (machine, actions) = refusedWebSocket()
        let c = try #require(opensStream(actions)).connection
        _ = machine.streamOpened(connection: c)
        _ = machine.streamReceived(connection: c, [fixtures.event(2), fixtures.event(3)])
        let dropped = machine.streamEnded(connection: c, .closed(code: nil))
        #expect(polls(dropped))
        #expect(dropped.contains { if case .schedule(.streamReconnect, _) = $0 { true } else { false } })
        #expect(machine.strategy == .pollingFallback(reason: .dropped, status: nil, phase: .midScan, from: .sse))
        _ = machine.pollResult(.snapshot(snapshot(seq: 5)))
        let reopen = try #require(opensStream(machine.timerFired(.streamReconnect)))
        #expect(reopen.after == 3)  // 5 was seen by a poll, but 4 was not: the stream replays from 4
        _ = machine.streamOpened(connection: reopen.connection)
        let healed = machine.streamReceived(connection: reopen.connection, [fixtures.event(4), fixtures.event(5), fixtures.event(6)])
        #expect(healed.contains(.cancel(.poll)))
        #expect(delivered(healed).map(\.0) == [6])
        #expect(machine.timerFired(.poll).isEmpty)
        _ = machine.streamReceived(connection: reopen.connection, [fixtures.event(7, .succeeded, fraction: 1)])
        #expect(machine.strategy == .sse(afterWebSocket: TransportFailure(reason: .refused, status: 426, phase: .beforeFirstEvent)))
        #expect(machine.metrics.streamFailures == 1)
    }

    @Test("a silent stream is closed after the silence timeout and polling takes over")
    func silentStream() throws {
        var (machine, actions) = refusedWebSocket()
        let c = try #require(opensStream(actions)).connection
        _ = machine.streamOpened(connection: c)
        _ = machine.streamReceived(connection: c, [])
        let silent = machine.timerFired(.silence(connection: c))
        #expect(silent.contains(.closeSocket(connection: c)))
        #expect(polls(silent))
        #expect(machine.strategy == .pollingFallback(reason: .silent, status: nil, phase: .beforeFirstEvent, from: .sse))
    }

    @Test("a server without event streams (426 to the stream request) is not asked again; polling carries the run")
    func serverWithoutStreams() throws {
        var (machine, actions) = refusedWebSocket()
        let c = try #require(opensStream(actions)).connection
        let refused = machine.streamEnded(connection: c, .refused(status: 426))
        #expect(polls(refused))
        #expect(!refused.contains { if case .schedule(.streamReconnect, _) = $0 { true } else { false } })
        #expect(machine.strategy == .pollingFallback(reason: .refused, status: 426, phase: .beforeFirstEvent, from: .sse))
    }

    @Test("a WebSocket that heals takes over from the stream: the stream closes, the run is websocket_reconnected")
    func webSocketTakesOver() throws {
        var machine = TrackerStateMachine(mode: .auto)
        _ = machine.start()
        _ = machine.uploadAccepted(snapshot(seq: 1, .queued))
        _ = machine.socketOpened(connection: 1)
        _ = machine.socketMessage(connection: 1, .event(fixtures.event(2)))
        let dropped = machine.socketEnded(connection: 1, .closed(code: nil))
        let stream = try #require(opensStream(dropped))
        #expect(!polls(dropped))
        _ = machine.streamOpened(connection: stream.connection)
        _ = machine.streamReceived(connection: stream.connection, [fixtures.event(3)])
        #expect(machine.strategy == .sse(afterWebSocket: TransportFailure(reason: .dropped, status: nil, phase: .midScan)))
        let reconnect = machine.timerFired(.reconnect)
        let socket = try #require(reconnect.lazy.compactMap { if case .openSocket(let c, _) = $0 { c } else { nil } }.first)
        _ = machine.socketOpened(connection: socket)
        let frame = machine.socketMessage(connection: socket, .event(fixtures.event(4)))
        #expect(frame.contains(.closeSocket(connection: stream.connection)))
        #expect(machine.streamReceived(connection: stream.connection, [fixtures.event(5)]).isEmpty)
        _ = machine.socketMessage(connection: socket, .event(fixtures.event(5, .succeeded, fraction: 1)))
        #expect(machine.strategy == .websocketReconnected)
    }

    @Test("--strategy sse: no socket, the stream opens once the upload is accepted, classified sse with no WebSocket failure")
    func forcedStream() throws {
        var machine = TrackerStateMachine(mode: .sse)
        #expect(machine.start().isEmpty)
        let accepted = machine.uploadAccepted(snapshot(seq: 1, .queued))
        let c = try #require(opensStream(accepted)).connection
        _ = machine.streamOpened(connection: c)
        _ = machine.streamReceived(connection: c, [fixtures.event(2, .succeeded, fraction: 1)])
        #expect(machine.strategy == .sse(afterWebSocket: nil))
        #expect(machine.metrics.socketAttempts == 0)
    }

    @Test("--strategy sse fails with its own outcome when a proxy buffers the stream, and never polls")
    func forcedStreamBuffered() throws {
        var machine = TrackerStateMachine(mode: .sse)
        let c = try #require(opensStream(machine.uploadAccepted(snapshot(seq: 1, .queued)))).connection
        let fired = machine.timerFired(.streamFirstByte(connection: c))
        #expect(fired.contains(.finish(.socketUnavailable(.buffered))))
        #expect(!polls(fired))
        #expect(machine.strategy == nil)
    }

    @Test("--strategy sse with a refused token ends as unauthorized")
    func forcedStreamUnauthorized() throws {
        var machine = TrackerStateMachine(mode: .sse)
        let c = try #require(opensStream(machine.uploadAccepted(snapshot(seq: 1, .queued)))).connection
        #expect(machine.streamEnded(connection: c, .refused(status: 401)).contains(.finish(.unauthorized(status: 401))))
    }

    @Test("adaptive memory can start the ladder at the stream: no socket, the stream at acceptance, sse with no WebSocket failure")
    func ladderStartsAtStream() throws {
        var machine = TrackerStateMachine(mode: .auto, ladderStart: .sse)
        #expect(machine.start().isEmpty)
        let accepted = machine.uploadAccepted(snapshot(seq: 1, .queued))
        let c = try #require(opensStream(accepted)).connection
        #expect(!accepted.contains { if case .schedule(.socketGiveUp, _) = $0 { true } else { false } })
        _ = machine.streamOpened(connection: c)
        _ = machine.streamReceived(connection: c, [fixtures.event(2, .succeeded, fraction: 1)])
        #expect(machine.strategy == .sse(afterWebSocket: nil))
        #expect(machine.metrics.socketAttempts == 0)
    }

    @Test("with the stream in the ladder a refusal is not probed: one of unknown status opens the stream and is not retried")
    func unknownRefusalIsNotProbedOrRetried() throws {
        var machine = TrackerStateMachine(mode: .auto)
        #expect(!machine.probesRefusedUpgrades)
        #expect(TrackerStateMachine(mode: .auto, eventStreamAvailable: false).probesRefusedUpgrades)
        #expect(TrackerStateMachine(mode: .websocket).probesRefusedUpgrades)
        _ = machine.start()
        _ = machine.uploadAccepted(snapshot(seq: 1, .queued))
        _ = machine.socketEnded(connection: 1, .refused(status: nil))  // raced the upload: reopened once, free
        let refused = machine.socketEnded(connection: 2, .refused(status: nil))
        #expect(opensStream(refused) != nil)
        #expect(refused.contains(.cancel(.reconnect)))
        #expect(machine.timerFired(.reconnect).isEmpty)
        #expect(machine.metrics.socketFailures == 1)
    }

    @Test("a WebSocket refused during the upload starts the stream at acceptance, not at the first-frame deadline")
    func refusedBeforeAcceptance() throws {
        var machine = TrackerStateMachine(mode: .auto)
        _ = machine.start()
        _ = machine.socketEnded(connection: 1, .refused(status: 403))
        let accepted = machine.uploadAccepted(snapshot(seq: 1, .queued))
        #expect(opensStream(accepted) != nil)
    }
}
