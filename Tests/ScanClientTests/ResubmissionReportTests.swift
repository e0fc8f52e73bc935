import RunModel
import Testing

@testable import ScanClient

/// How a run that was resubmitted after a 404 (a server restart) is classified: its counters add up
/// over both submissions, and the strategy never claims a failure-free WebSocket run.
@Suite("Resubmitted run report")
struct ResubmissionReportTests {
    func run(_ strategy: ProgressStrategy, socketFailures: Int, reconnects: Int, polls: Int) -> TrackedRun {
        var metrics = TrackerMetrics()
        metrics.socketFailures = socketFailures
        metrics.reconnects = reconnects
        metrics.pollsMade = polls
        return TrackedRun(ending: .jobLost, strategy: strategy, metrics: metrics, uploadSeconds: 0.1, firstEventSeconds: 0.2, totalSeconds: 3)
    }

    @Test("first socket dropped, the resubmission's socket carried the end: websocket_reconnected, counters summed")
    func socketCarriedAfterResubmission() {
        var report = ScanReport(image: "shelf.jpg", outcome: .stopped, totalSeconds: 0)
        report.record(run(.pollingFallback(reason: .dropped, status: nil, phase: .midScan), socketFailures: 3, reconnects: 2, polls: 3))
        report.record(run(.websocket, socketFailures: 0, reconnects: 0, polls: 0))
        #expect(report.strategy == .websocketReconnected)
        #expect(report.socketFailures == 3 && report.reconnects == 2 && report.polls == 3)
    }

    @Test("first submission carried by polling without a counted socket failure, the resubmission's socket by the end: websocket_reconnected")
    func pollingThenSocketAfterResubmission() {
        var report = ScanReport(image: "shelf.jpg", outcome: .stopped, totalSeconds: 0)
        report.record(run(.pollingFallback(reason: .connectTimeout, status: nil, phase: .beforeFirstEvent), socketFailures: 0, reconnects: 0, polls: 2))
        report.record(run(.websocket, socketFailures: 0, reconnects: 0, polls: 0))
        #expect(report.strategy == .websocketReconnected)
    }

    @Test("a run without any socket failure stays websocket")
    func cleanRun() {
        var report = ScanReport(image: "shelf.jpg", outcome: .stopped, totalSeconds: 0)
        report.record(run(.websocket, socketFailures: 0, reconnects: 0, polls: 0))
        #expect(report.strategy == .websocket)
    }
}
