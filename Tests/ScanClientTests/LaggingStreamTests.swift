import FaultProxy
import Foundation
import RunModel
import ScanClient
import ScanProtocol
import ScanService
import Testing

/// A middlebox that passes the event stream slowly (a few hundred bytes a second): the stream stays
/// alive but falls ever further behind. The real client, the real service, the real fault proxy:
/// the lagging transport must be left for the next step of the ladder, the lag recorded as its
/// reason, and the whole emitted stream must stay sound.
@Suite("Ladder: a lagging transport is abandoned", .serialized)
struct LaggingStreamTests {
    /// The proxy's rate: the middlebox passed a few hundred bytes a second.
    static let trickle = 300

    /// Scans with events 600 ms apart: the events and 200 ms heartbeats outrun the trickle, and the
    /// job lasts long enough for the lag to be proven before it ends (a job that ends sooner is shown
    /// ended by the first hedged poll, and classified by the transport that was carrying it).
    static let service = ServiceConfiguration().injecting(FaultSeams(scanStepDelay: .milliseconds(600)))

    /// The harness's fast timings, with room for a socket's first frame to crawl through the trickle.
    static var settings: TrackerSettings {
        var settings = ClientHarness.fastSettings
        settings.firstFrameDeadline = .seconds(3)
        settings.socketGiveUp = .seconds(6)
        return settings
    }

    static func isEvents(_ request: ProxiedRequest) -> Bool { request.path.contains("/events") }

    @Test("upgrades refused, the event stream trickled at 300 B/s: polling takes over; polling_fallback from sse, lagging")
    func trickledEventStream() async throws {
        try await ClientHarness.with(service: Self.service, plan: { request in
            if request.isUpgrade { return .blockUpgrade }
            return Self.isEvents(request) ? .trickle(bytesPerSecond: Self.trickle) : .passThrough
        }) { harness in
            let (report, observed) = await harness.scan(try TestImages.shelf(seed: 21), settings: Self.settings)
            expectSoundRun(report, observed)
            let why = "\(String(describing: report.strategy)) from \(String(describing: report.fallbackFrom)) \(String(describing: report.fallbackReason)) \(report.eventsByPath)"
            #expect(report.strategy == .pollingFallback && report.fallbackFrom == .sse, "\(why)")
            #expect(report.fallbackReason == .lagging && report.fallbackPhase == .midScan, "\(why)")
            // Given up for the run: one stream, never reopened.
            #expect(report.streamFailures == 1)
            #expect(observed.paths.last == .polling, "\(observed.paths)")
        }
    }

    @Test("the WebSocket stalled, then the event stream trickled: polling takes over; polling_fallback from sse, lagging")
    func stalledSocketThenTrickledStream() async throws {
        // Events a second apart: the job outlasts the stalled socket's first-frame deadline, then the
        // stream's proof of lag.
        let slower = ServiceConfiguration().injecting(FaultSeams(scanStepDelay: .seconds(1)))
        try await ClientHarness.with(service: slower, plan: { request in
            if request.isUpgrade { return .silentAfterResponseHead }
            return Self.isEvents(request) ? .trickle(bytesPerSecond: Self.trickle) : .passThrough
        }) { harness in
            // A first-frame deadline the stream's trickled response head (~200 bytes) can meet.
            var settings = Self.settings
            settings.firstFrameDeadline = .milliseconds(1500)
            let (report, observed) = await harness.scan(try TestImages.shelf(seed: 22), settings: settings)
            expectSoundRun(report, observed)
            let why = "\(String(describing: report.strategy)) from \(String(describing: report.fallbackFrom)) \(String(describing: report.fallbackReason)) \(report.eventsByPath)"
            #expect(report.strategy == .pollingFallback && report.fallbackFrom == .sse && report.fallbackReason == .lagging, "\(why)")
            #expect(report.streamFailures == 1)
            #expect(observed.paths.last == .polling, "\(observed.paths)")
        }
    }

    @Test("the WebSocket trickled, the event stream passed: the stream takes over for good; sse after websocket, lagging")
    func trickledSocket() async throws {
        try await ClientHarness.with(service: Self.service, plan: { request in
            request.isUpgrade ? .trickle(bytesPerSecond: Self.trickle) : .passThrough
        }) { harness in
            let (report, observed) = await harness.scan(try TestImages.shelf(seed: 23), settings: Self.settings)
            expectSoundRun(report, observed)
            let why = "\(String(describing: report.strategy)) from \(String(describing: report.fallbackFrom)) \(String(describing: report.fallbackReason)) \(report.eventsByPath)"
            #expect(report.strategy == .sse && report.fallbackFrom == .websocket && report.fallbackReason == .lagging, "\(why)")
            #expect(report.fallbackPhase == .midScan, "\(why)")
            // A lagging socket is not retried: the same middlebox would trickle the next one too.
            #expect(report.socketFailures == 1 && report.reconnects == 0, "\(why)")
            #expect(observed.paths.last == .sse, "\(observed.paths)")
        }
    }
}
