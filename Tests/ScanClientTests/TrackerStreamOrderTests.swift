import Foundation
import RunModel
import ScanClient
import ScanProtocol
import Testing

/// The emitted stream never goes backwards (issue 12 §1): whatever order the upload, the socket
/// (and its replays) and polls deliver the job's events in, the machine delivers a seq only if it is
/// newer than the last one it delivered.
@Suite("Tracker stream order")
struct TrackerStreamOrderTests {
    let jobId = UUID()
    static let stages: [ScanStage] = [.queued, .decoding, .findingRows, .segmentingSpines, .segmentingSpines, .finishing, .done]

    /// The job's own history: seq n has a stage and fraction that never go back; the last is terminal.
    func history(_ seq: Int, count: Int = 7) -> JobEvent {
        let state: JobState = seq == count ? .succeeded : (seq == 1 ? .queued : .running)
        let stage = Self.stages[min(seq - 1, Self.stages.count - 1)]
        return JobEvent(jobId: jobId, seq: seq, state: state, stage: stage, fraction: Double(seq - 1) / Double(count - 1), timestamp: Date())
    }

    func snapshot(_ seq: Int) -> JobSnapshot {
        let e = history(seq)
        return JobSnapshot(
            jobId: jobId, state: e.state, stage: e.stage, fraction: e.fraction, seq: seq, createdAt: Date(), updatedAt: Date(), startedAt: nil,
            finishedAt: nil, expiresAt: Date(), imageBytes: 1, result: nil, error: nil, links: JobLinks(jobId: jobId))
    }

    /// The invariants every emitted stream keeps: seq strictly increasing, stage and fraction never
    /// back, at most one terminal event and one ending.
    func expectSoundStream(_ emitted: [JobEvent], endings: Int) {
        let seqs = emitted.map(\.seq)
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 }, "seq went back: \(seqs)")
        let stages = emitted.map { Self.stages.firstIndex(of: $0.stage) ?? 0 }
        #expect(zip(stages, stages.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(zip(emitted, emitted.dropFirst()).allSatisfy { $0.fraction <= $1.fraction })
        #expect(emitted.filter(\.state.isTerminal).count <= 1)
        #expect(endings <= 1)
    }

    func delivered(_ actions: [TrackerStateMachine.Action]) -> [JobEvent] {
        actions.compactMap { if case .deliver(let e, _, _) = $0 { e } else { nil } }
    }

    @Test("upload snapshot seq 3, then the socket replays 1, 2: only events newer than 3 are delivered; contiguity still counts 1, 2")
    func uploadThenReplay() {
        var machine = TrackerStateMachine(mode: .auto, eventStreamAvailable: false)
        _ = machine.start()
        #expect(delivered(machine.uploadAccepted(snapshot(3))).map(\.seq) == [3])
        _ = machine.socketOpened(connection: 1)
        #expect(delivered(machine.socketMessage(connection: 1, .event(history(1)))).isEmpty)
        #expect(delivered(machine.socketMessage(connection: 1, .event(history(2)))).isEmpty)
        #expect(machine.resumeAfter == 3)
        #expect(delivered(machine.socketMessage(connection: 1, .event(history(4)))).map(\.seq) == [4])
        #expect(machine.metrics.eventsByPath[.websocket] == 1)
    }

    @Test("a poll at 62 %, then a reconnected socket replays older events: none of them is shown again")
    func pollThenSocketReplay() {
        var machine = TrackerStateMachine(mode: .auto, eventStreamAvailable: false)
        _ = machine.start()
        _ = machine.uploadAccepted(snapshot(1))
        _ = machine.socketOpened(connection: 1)
        _ = machine.socketMessage(connection: 1, .event(history(2)))
        _ = machine.socketEnded(connection: 1, .closed(code: nil))  // drops: polling starts
        let polled = delivered(machine.pollResult(.snapshot(snapshot(5))))
        #expect(polled.map(\.seq) == [5])
        _ = machine.timerFired(.reconnect)
        _ = machine.socketOpened(connection: 2)
        #expect(delivered(machine.socketMessage(connection: 2, .event(history(3)))).isEmpty)
        #expect(delivered(machine.socketMessage(connection: 2, .event(history(4)))).isEmpty)
        #expect(delivered(machine.socketMessage(connection: 2, .event(history(5)))).isEmpty)
        #expect(machine.resumeAfter == 5)
        #expect(delivered(machine.socketMessage(connection: 2, .event(history(6)))).map(\.seq) == [6])
    }

    @Test("any interleaving of upload, socket replays and polls: seq strictly increasing, stage and fraction never back, one terminal", arguments: 0..<40)
    func randomInterleavings(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed) &* 0x9E37_79B9 &+ 1)
        var machine = TrackerStateMachine(mode: .auto, eventStreamAvailable: false)
        var emitted: [JobEvent] = []
        var endings = 0
        func take(_ actions: [TrackerStateMachine.Action]) {
            emitted += delivered(actions)
            endings += actions.filter { if case .finish = $0 { true } else { false } }.count
        }
        take(machine.start())
        var serverSeq = 1  // what the server has reached
        var connection = 1
        var socketNext = 1  // next seq the socket will send (replay from `after`)
        var open = false
        var uploaded = false
        for _ in 0..<200 where !machine.finished {
            switch rng.next() % 7 {
            case 0: serverSeq = min(7, serverSeq + 1)
            case 1:
                if !uploaded {
                    uploaded = true
                    take(machine.uploadAccepted(snapshot(Int(rng.next() % UInt64(serverSeq)) + 1)))
                }
            case 2:
                if !open {
                    take(machine.socketOpened(connection: connection))
                    open = true
                    socketNext = Int(rng.next() % 3) + 1  // a replay that starts early
                }
            case 3, 4:
                if open, socketNext <= serverSeq {
                    take(machine.socketMessage(connection: connection, .event(history(socketNext))))
                    socketNext += 1
                }
            case 5:
                if uploaded { take(machine.pollResult(.snapshot(snapshot(Int(rng.next() % UInt64(serverSeq)) + 1)))) }
            default:
                if open {
                    take(machine.socketEnded(connection: connection, .closed(code: nil)))
                    open = false
                    connection += 1
                    take(machine.timerFired(.reconnect))
                }
            }
        }
        // Then the job ends on the server and a poll shows it: whatever came before, the run ends, once.
        if !uploaded { take(machine.uploadAccepted(snapshot(1))) }
        if !machine.finished { take(machine.pollResult(.snapshot(snapshot(7)))) }
        expectSoundStream(emitted, endings: endings)
        #expect(emitted.filter(\.state.isTerminal).count == 1 && endings == 1, "seed \(seed): \(emitted.map(\.seq)), \(endings) endings")
        #expect(emitted.last?.seq == 7)
    }

    @Test(
        "any interleaving of upload, WebSocket, event stream, polls and timers: seq strictly increasing, never back, one terminal, the run classified by what carried it",
        arguments: 0..<60)
    func randomLadderInterleavings(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed) &* 0x51_7CC1_B727 &+ 7)
        var machine = TrackerStateMachine(mode: .auto)
        var emitted: [(event: JobEvent, path: EventPath)] = []
        var endings = 0
        // What the driver was asked to open and has not yet seen end: connection → (is a stream, next seq it sends).
        var asked: [Int: (stream: Bool, next: Int)] = [:]
        var opened = Set<Int>()
        var serverSeq = 1
        var uploaded = false
        func take(_ actions: [TrackerStateMachine.Action]) {
            for action in actions {
                switch action {
                case .deliver(let event, let path, _): emitted.append((event, path))
                case .finish: endings += 1
                case .openSocket(let c, let after): asked[c] = (false, after + 1)
                case .openStream(let c, let after): asked[c] = (true, after + 1)
                case .closeSocket(let c):
                    asked.removeValue(forKey: c)
                    opened.remove(c)
                default: break
                }
            }
        }
        take(machine.start())
        for _ in 0..<300 where !machine.finished {
            let live = asked.keys.sorted()
            let pick = live.isEmpty ? nil : live[Int(rng.next() % UInt64(live.count))]
            switch rng.next() % 12 {
            case 0: serverSeq = min(7, serverSeq + 1)
            case 1:
                if !uploaded {
                    uploaded = true
                    take(machine.uploadAccepted(snapshot(Int(rng.next() % UInt64(serverSeq)) + 1)))
                }
            case 2:
                if let c = pick, !opened.contains(c), let leg = asked[c] {
                    opened.insert(c)
                    take(leg.stream ? machine.streamOpened(connection: c) : machine.socketOpened(connection: c))
                }
            case 3, 4:
                if let c = pick, opened.contains(c), let leg = asked[c] {
                    if leg.next <= serverSeq {
                        asked[c]?.next += 1
                        take(leg.stream ? machine.streamReceived(connection: c, [history(leg.next)]) : machine.socketMessage(connection: c, .event(history(leg.next))))
                    } else if leg.stream {
                        take(machine.streamReceived(connection: c, [], heartbeats: 1))
                    }
                }
            case 5:
                if uploaded { take(machine.pollResult(.snapshot(snapshot(Int(rng.next() % UInt64(serverSeq)) + 1)))) }
            case 6:
                if let c = pick, let leg = asked[c] {
                    let ends: [SocketEnd] = [.closed(code: nil), .refused(status: 502), .refused(status: 403), .unreachable]
                    let end = ends[Int(rng.next() % UInt64(ends.count))]
                    asked.removeValue(forKey: c)
                    opened.remove(c)
                    take(leg.stream ? machine.streamEnded(connection: c, end) : machine.socketEnded(connection: c, end))
                }
            default:
                var timers: [TrackerTimer] = [.firstFrameDeadline, .socketGiveUp, .reconnect, .streamReconnect, .poll]
                if let c = pick { timers += [.silence(connection: c), .streamFirstByte(connection: c), .connectDeadline(connection: c), .heartbeatLate(connection: c)] }
                take(machine.timerFired(timers[Int(rng.next() % UInt64(timers.count))]))
            }
        }
        // Then the job ends on the server and a poll shows it: whatever came before, the run ends, once.
        if !uploaded { take(machine.uploadAccepted(snapshot(1))) }
        if !machine.finished { take(machine.pollResult(.snapshot(snapshot(7)))) }
        expectSoundStream(emitted.map(\.event), endings: endings)
        #expect(machine.finished, "seed \(seed): the run did not end")
        #expect(emitted.filter(\.event.state.isTerminal).count == 1 && endings == 1, "seed \(seed): \(emitted.map(\.event.seq)), \(endings) endings")
        #expect(emitted.last?.event.seq == 7)
        // Every connection the machine opened was closed with the end.
        #expect(asked.isEmpty, "still open after the end: \(asked.keys.sorted())")
        switch machine.strategy {
        case .sse: #expect(machine.metrics.streamAttempts > 0)
        case .pollingFallback(_, _, _, let from): #expect(from == .websocket || machine.metrics.streamFailures > 0)
        case .websocket: #expect(machine.metrics.socketFailures == 0)
        default: break
        }
    }
}
