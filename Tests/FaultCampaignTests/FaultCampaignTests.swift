import FaultCampaign
import Foundation
import ScanClient
import Testing

/// The CI fault campaign: real service, real client, every fault kind, every job checked.
@Suite("Fault campaign")
struct FaultCampaignTests {
    static let sampleImages: [String] = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return CampaignConfiguration.images(in: root.appendingPathComponent("SampleImages").path)
    }()

    /// Six rounds of the nine fault kinds: every kind six times.
    static let ciJobs = 54
    static let ciSeed: UInt64 = 2026

    @Test("54 jobs through the fault proxy (every fault kind 6 times): 100 % complete and correct")
    func ciCampaign() async throws {
        try #require(!Self.sampleImages.isEmpty)
        let runner = CampaignRunner(configuration: CampaignConfiguration(jobs: Self.ciJobs, seed: Self.ciSeed, concurrency: 12, images: Self.sampleImages))
        let report = try await runner.run()
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
        // Every round of nine jobs holds every kind once.
        let rounds = stride(from: 0, to: 99, by: FaultKind.allCases.count).map { Set(first[$0..<($0 + FaultKind.allCases.count)].map(\.fault.kind)) }
        #expect(rounds.allSatisfy { $0 == Set(FaultKind.allCases) })
        #expect(first.allSatisfy { job in job.fault.cutAtByte.map { $0 >= 400 && $0 <= 300 + 80_000 * 9 / 10 } ?? true })
    }

    @Test("Each fault's expected classification follows from what was injected")
    func expectations() {
        var refused = InjectedFault(kind: .upgradeRefused)
        refused.status = 426
        #expect(refused.expected == .fallback(.refused, status: 426))
        #expect(InjectedFault(kind: .silentUpgrade).expected == .fallback(.silent))
        #expect(InjectedFault(kind: .tcpReset).expected.strategy == .websocketReconnected)
        var polls = InjectedFault(kind: .pollFaults)
        polls.viaFallback = false
        #expect(polls.mode == .polling)
        #expect(polls.expected == .polling)
        polls.viaFallback = true
        #expect(polls.mode == .auto)
        #expect(polls.expected == .fallback(.refused, status: 503))
    }
}
