import FaultProxy
import Foundation
import RunModel
import ScanClient
import ScanProtocol
import ScanService
import Testing

/// The ladder's middle step end to end: the real client, the real service, and a proxy that blocks
/// upgrades or buffers responses as corporate and hotel proxies do. Every run's whole delivered
/// stream is checked, not only its ending.
@Suite("Ladder: WebSocket → SSE → polling through proxies", .serialized)
struct EventStreamLadderTests {
    func expectSound(_ report: ScanReport, _ observed: Observed, everyEvent: Bool = false) {
        expectSoundRun(report, observed, everyEvent: everyEvent)
    }

    @Test("a proxy that refuses every upgrade (403): SSE carries the whole job at once, no polling; classified sse after the refusal")
    func blockedUpgrades() async throws {
        try await ClientHarness.with(service: slowScans, plan: { _ in .blockUpgrade }) { harness in
            let (report, observed) = await harness.scan(try TestImages.shelf(seed: 11))
            expectSound(report, observed, everyEvent: true)
            #expect(report.strategy == .sse)
            #expect(report.fallbackFrom == .websocket && report.fallbackReason == .refused && report.fallbackPhase == .beforeFirstEvent)
            #expect(report.polls == 0)
            #expect(report.eventsByPath["websocket"] == nil && (report.eventsByPath["sse"] ?? 0) > 0)
            #expect(observed.paths.dropFirst().allSatisfy { $0 == .sse }, "\(observed.paths)")
            #expect(report.streamFailures == 0)
        }
    }

    @Test("--strategy sse through the same proxy: the stream alone carries the job, no socket is tried")
    func forcedStream() async throws {
        try await ClientHarness.with(service: slowScans, plan: { _ in .blockUpgrade }) { harness in
            let (report, observed) = await harness.scan(try TestImages.shelf(seed: 12), mode: .sse)
            expectSound(report, observed, everyEvent: true)
            #expect(report.strategy == .sse && report.fallbackFrom == nil && report.fallbackReason == nil)
            #expect(report.socketFailures == 0 && report.polls == 0)
            #expect(harness.proxy?.requests.contains { $0.0.isUpgrade } == false)
        }
    }

    @Test("a buffering proxy: the stream shows no byte in time, so polling carries the job; classified polling_fallback from sse, buffered")
    func bufferingProxy() async throws {
        // Steps slow enough that the job outlasts the first-byte deadline (a stream whose job ends
        // sooner arrives whole, and then it did carry the job).
        let slow = ServiceConfiguration().injecting(FaultSeams(scanStepDelay: .milliseconds(100)))
        try await ClientHarness.with(service: slow, plan: { $0.isUpgrade ? .blockUpgrade : .buffer }) { harness in
            // The first-byte deadline is what this test injects a fault against: the short one.
            let (report, observed) = await harness.scan(try TestImages.shelf(seed: 13), settings: ClientHarness.fastSettings)
            expectSound(report, observed)
            #expect(report.strategy == .pollingFallback)
            #expect(report.fallbackFrom == .sse && report.fallbackReason == .buffered && report.fallbackPhase == .beforeFirstEvent)
            #expect(report.eventsByPath["sse"] == nil && (report.eventsByPath["polling"] ?? 0) > 0)
            // Given up for the run: one stream, never reopened.
            #expect(report.streamFailures == 1)
        }
    }

    @Test("streams dropped mid-scan by the server: each reconnect resumes after the last seq; nothing lost or repeated")
    func droppedStreams() async throws {
        let service = ServiceConfiguration().injecting(FaultSeams(dropSocketAfterEvents: 3, scanStepDelay: .milliseconds(15)))
        try await ClientHarness.with(service: service, plan: { _ in .blockUpgrade }) { harness in
            let (report, observed) = await harness.scan(try TestImages.shelf(seed: 14))
            expectSound(report, observed)
            #expect(report.streamFailures >= 1)
            #expect(report.strategy == .sse || (report.strategy == .pollingFallback && report.fallbackFrom == .sse && report.fallbackPhase == .midScan))
            let resumed = harness.proxy?.requests.filter { !$0.0.isUpgrade && $0.0.path.contains("/events") && !$0.0.path.hasSuffix("after=0") } ?? []
            #expect(!resumed.isEmpty)
        }
    }

    @Test("a stream that goes silent after its opening is closed at the silence timeout; polling carries the job")
    func silentStream() async throws {
        // A job that outlasts the 1 s silence timeout (the silent stream ends when its job does).
        let service = ServiceConfiguration().injecting(FaultSeams(silentSockets: true, scanStepDelay: .milliseconds(100)))
        try await ClientHarness.with(service: service, plan: { _ in .blockUpgrade }) { harness in
            // The silence timeout is what this test injects a fault against: the short one.
            let (report, observed) = await harness.scan(try TestImages.shelf(seed: 15), settings: ClientHarness.fastSettings)
            expectSound(report, observed)
            #expect(
                report.strategy == .pollingFallback && report.fallbackFrom == .sse && report.fallbackReason == .silent,
                "\(String(describing: report.strategy)) from \(String(describing: report.fallbackFrom)) \(String(describing: report.fallbackReason)) \(report.eventsByPath)")
        }
    }
}
