import FaultProxy
import Foundation
import RunModel
import ScanClient
import ScanProtocol
import ScanService
import Testing

/// Several jobs followed at once on one shared events socket (what `bookscan batch` does): the real
/// client, the real service, faults through the proxy or a server seam. Every job's whole delivered
/// stream is checked, and each job falls back on its own.
@Suite("One shared events socket for many jobs", .serialized)
struct SharedEventSocketTests {
    /// Scans `count` photos at once through `shared` (tracked with `settings`); the reports and what each
    /// displayed, in photo order.
    func scanAll(
        _ harness: ClientHarness, count: Int, seed: Int, shared: SharedEventSocket, settings: TrackerSettings = ClientHarness.patientSettings
    ) async throws -> [(ScanReport, Observed)] {
        let paths = try (0..<count).map { try TestImages.shelf(seed: seed + $0) }
        return await withTaskGroup(of: (Int, ScanReport, Observed).self) { group in
            for (i, path) in paths.enumerated() {
                group.addTask {
                    let (report, observed) = await harness.scan(path, settings: settings, sharedSocket: shared)
                    return (i, report, observed)
                }
            }
            var results: [(Int, ScanReport, Observed)] = []
            for await result in group { results.append(result) }
            return results.sorted { $0.0 < $1.0 }.map { ($0.1, $0.2) }
        }
    }

    func expectSound(_ report: ScanReport, _ observed: Observed, everyEvent: Bool) {
        expectSoundRun(report, observed, everyEvent: everyEvent)
    }

    @Test("four jobs at once: one upgrade for all of them, every job's whole stream over it, each classified websocket")
    func oneSocketForAll() async throws {
        try await ClientHarness.with(service: slowScans, plan: { _ in .passThrough }) { harness in
            let shared = harness.sharedSocket()
            // A healthy network: the patient default deadlines (a 2-core machine running other suites beside this
            // one once missed 500 ms on a healthy socket; then SSE rightly started and the jobs were classified sse).
            let results = try await scanAll(harness, count: 4, seed: 40, shared: shared)
            await shared.close()
            for (report, observed) in results {
                expectSound(report, observed, everyEvent: true)
                #expect(report.strategy == .websocket && report.socketFailures == 0, "\(String(describing: report.strategy))")
                // Every event after the upload's answer came over the socket, or (on a machine so loaded that a
                // frame arrives more than the lag bound after the server wrote it: this test has taken 120 s in
                // CI) first from the lag watch's hedged poll, by design; never from anything else.
                #expect(observed.paths.dropFirst().allSatisfy { $0 == .websocket || $0 == .polling }, "\(observed.paths)")
                #expect(observed.paths.contains(.websocket), "\(observed.paths)")
            }
            let upgrades = harness.proxy?.requests.filter { $0.0.isUpgrade } ?? []
            #expect(upgrades.count == 1 && upgrades.first?.0.path == Routes.multiplexedEvents, "\(upgrades.map(\.0.path))")
            #expect(await shared.linksOpened == 1)
            // (A job whose first frame is later than the first-frame deadline on a loaded machine opens an
            // event stream too, as the ladder says; the socket still carries it, as checked above.)
        }
    }

    @Test("the shared socket dropped by the server every few events: every job resumes after its own seq on a new one; nothing lost or repeated")
    func droppedSharedSocket() async throws {
        let service = ServiceConfiguration().injecting(FaultSeams(dropSocketAfterEvents: 6, scanStepDelay: .milliseconds(15)))
        try await ClientHarness.with(service: service, plan: { _ in .passThrough }) { harness in
            let shared = harness.sharedSocket()
            let results = try await scanAll(harness, count: 3, seed: 50, shared: shared)
            await shared.close()
            for (report, observed) in results {
                expectSound(report, observed, everyEvent: false)
                #expect(report.socketFailures >= 1 || report.strategy == .websocket)
            }
            #expect(await shared.linksOpened >= 2, "the link was reopened after it dropped")
            #expect(results.contains { $0.0.socketFailures >= 1 })
        }
    }

    @Test("a proxy that refuses every upgrade: the shared socket is refused, and each job falls back to SSE on its own")
    func blockedUpgrades() async throws {
        try await ClientHarness.with(service: slowScans, plan: { _ in .blockUpgrade }) { harness in
            let shared = harness.sharedSocket()
            let results = try await scanAll(harness, count: 3, seed: 60, shared: shared)
            await shared.close()
            for (report, observed) in results {
                expectSound(report, observed, everyEvent: true)
                #expect(report.strategy == .sse, "\(String(describing: report.strategy))")
                #expect(report.fallbackFrom == .websocket && report.fallbackReason == .refused)
                #expect(report.polls == 0)
            }
            #expect(await shared.linksOpened == 0)
        }
    }

    @Test("the shared socket goes silent mid-scan (a proxy stops forwarding it): each job detects the silence itself and finishes by another path or a new socket")
    func silentSharedSocket() async throws {
        try await ClientHarness.with(service: slowScans, plan: { request in
            request.isUpgrade && request.ordinal == 1 ? .swallowAfterEvents(8) : .passThrough
        }) { harness in
            // The silence is what this test injects: the short deadlines, for the link and for each job.
            let shared = harness.sharedSocket(staleAfter: ClientHarness.fastSettings.silenceTimeout)
            let results = try await scanAll(harness, count: 3, seed: 70, shared: shared, settings: ClientHarness.fastSettings)
            await shared.close()
            for (report, observed) in results {
                expectSound(report, observed, everyEvent: false)
            }
            #expect(results.contains { $0.0.fallbackReason == .silent || $0.0.socketFailures >= 1 })
            #expect(await shared.connectAttempts >= 2 || results.allSatisfy { $0.0.strategy != .websocket })
        }
    }
}
