import BookscanTestSupport
import FaultCampaign
import Foundation
import RunModel
import ScanClient
import ScanProtocol
import Testing

/// The CI fault campaign: real service, real client, every fault kind, every job checked.
@Suite("Fault campaign")
struct FaultCampaignTests {
    static let sampleImages: [String] = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return CampaignConfiguration.images(in: root.appendingPathComponent("SampleImages").path)
    }()

    /// Four rounds of every fault kind.
    static let ciJobs = 4 * FaultKind.allCases.count
    static let ciSeed: UInt64 = 2026

    @Test("Every fault kind 4 times through the fault proxy: 100 % complete, every emitted stream and record correct")
    func ciCampaign() async throws {
        try #require(!Self.sampleImages.isEmpty)
        let runner = CampaignRunner(configuration: CampaignConfiguration(jobs: Self.ciJobs, seed: Self.ciSeed, concurrency: 12, images: Self.sampleImages))
        let report = try await HeavyTests.gate.run { try await runner.run() }
        #expect(report.jobs == Self.ciJobs)
        for summary in report.byFault { #expect(summary.jobs >= 2, "\(summary.kind) ran \(summary.jobs) times") }
        #expect(Set(report.byFault.map(\.kind)) == Set(FaultKind.allCases))
        #expect(report.passed == report.jobs, "\(report.table())")
    }

    @Test("The same seed draws the same campaign; another seed draws another")
    func seededDraw() throws {
        let images = [("a.jpg", 50_000), ("b.jpg", 80_000)]
        let catalogue = FaultCatalogue(images: images)
        let first = catalogue.draw(jobs: 100, seed: 7)
        #expect(first == catalogue.draw(jobs: 100, seed: 7))
        #expect(first != catalogue.draw(jobs: 100, seed: 8))
        // Every full round of jobs holds every kind once.
        let rounds = stride(from: 0, through: 100 - FaultKind.allCases.count, by: FaultKind.allCases.count).map { Set(first[$0..<($0 + FaultKind.allCases.count)].map(\.fault.kind)) }
        #expect(rounds.allSatisfy { $0 == Set(FaultKind.allCases) })
        #expect(first.allSatisfy { job in job.fault.cutAtByte.map { $0 >= 400 && $0 <= 300 + 80_000 * 9 / 10 } ?? true })
    }

    @Test("The stream oracle rejects a stream that goes back, a second terminal, a wrong last result, and counters that are not the stream")
    func streamOracle() {
        let jobId = UUID()
        func event(_ seq: Int, _ state: JobState, _ stage: ScanStage, _ fraction: Double) -> JobEvent {
            JobEvent(jobId: jobId, seq: seq, state: state, stage: stage, fraction: fraction, timestamp: Date())
        }
        let good = DisplayRecorder()
        good.observer.event(event(3, .running, .decoding, 0.1), .upload, 0.1)
        good.observer.path(.websocket)
        good.observer.event(event(4, .running, .findingRows, 0.3), .websocket, 0.3)
        good.observer.event(event(5, .succeeded, .done, 1), .websocket, 1)
        #expect(good.problems(succeeded: true, baseline: nil).isEmpty)
        #expect(good.emittedByPath == ["upload": 1, "websocket": 2])

        // The stream: upload seq 3, then the socket replays 1 and 2.
        let back = DisplayRecorder()
        back.observer.event(event(3, .running, .decoding, 0.1), .upload, 0.1)
        back.observer.path(.websocket)
        back.observer.event(event(1, .queued, .queued, 0), .websocket, 0.1)
        back.observer.event(event(6, .succeeded, .done, 1), .websocket, 1)
        let problems = back.problems(succeeded: true, baseline: nil)
        #expect(problems.contains { $0.hasPrefix("emitted seq went backwards") })
        #expect(problems.contains { $0.hasPrefix("state went backwards") })
        #expect(problems.contains { $0.hasPrefix("stage went backwards") })

        let twice = DisplayRecorder()
        twice.observer.path(.polling)
        twice.observer.event(event(5, .succeeded, .done, 1), .polling, 1)
        twice.observer.event(event(6, .succeeded, .done, 1), .polling, 1)
        #expect(twice.problems(succeeded: true, baseline: nil).contains { $0.hasPrefix("2 terminal events") })

        let wrongPath = DisplayRecorder()
        wrongPath.observer.path(.websocket)
        wrongPath.observer.event(event(5, .succeeded, .done, 1), .polling, 1)
        #expect(wrongPath.problems(succeeded: true, baseline: nil).contains { $0.hasPrefix("the live line named") })
    }

    @Test("Each fault's expected classification follows from what was injected")
    func expectations() {
        var refused = InjectedFault(kind: .upgradeRefused)
        refused.status = 426
        #expect(refused.expected == .fallback(.refused, status: 426, from: .sse))
        #expect(InjectedFault(kind: .silentUpgrade).expected == .eventStream(after: .silent))
        #expect(InjectedFault(kind: .blockedUpgrade).expected == .eventStream(after: .refused))
        let buffered = InjectedFault(kind: .bufferingProxy).expected
        #expect(buffered.strategy == .pollingFallback && buffered.fallbackFrom == .sse && buffered.fallbackReason == .buffered)
        #expect(InjectedFault(kind: .tcpReset).expected.strategy == .websocketReconnected)
        var polls = InjectedFault(kind: .pollFaults)
        polls.viaFallback = false
        #expect(polls.mode == .polling)
        #expect(polls.expected == .polling)
        polls.viaFallback = true
        #expect(polls.mode == .auto)
        #expect(polls.expected == .fallback(.refused, status: 503, from: .sse))
        #expect(InjectedFault(kind: .partialReplay).expected == .reconnectedTwice)
        #expect(InjectedFault(kind: .reconnectDuringPoll).expected == .reconnected)
        #expect(InjectedFault(kind: .lateUploadAnswer).expected == .websocket)
        let burst = InjectedFault(kind: .frameBurstAtTimer).expected
        #expect(burst.alsoAccepted == .websocketReconnected)
        // A trickled transport is left mid-scan for lagging: the stream by polling, the socket by the stream.
        for kind in [FaultKind.trickledStream, .stalledThenTrickled] {
            let lagging = InjectedFault(kind: kind).expected
            #expect(lagging.strategy == .pollingFallback && lagging.fallbackFrom == .sse && lagging.fallbackReason == .lagging)
            #expect(lagging.fallbackPhase == .midScan)
        }
        let socket = InjectedFault(kind: .trickledSocket).expected
        #expect(socket.strategy == .sse && socket.fallbackFrom == .websocket && socket.fallbackReason == .lagging && socket.maximumSocketFailures == 1)
        #expect(socket.alsoAccepted == .websocket)
    }
}
