import Foundation
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
        let seqs = emitted.map(\.seq)
        #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $0 < $1 }, "seq went back: \(seqs)")
        let stages = emitted.map { Self.stages.firstIndex(of: $0.stage) ?? 0 }
        #expect(zip(stages, stages.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(zip(emitted, emitted.dropFirst()).allSatisfy { $0.fraction <= $1.fraction })
        #expect(emitted.filter(\.state.isTerminal).count <= 1)
        #expect(endings <= 1)
    }
}
