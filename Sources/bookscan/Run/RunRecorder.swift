import Foundation
import ScanAnalytics
import ScanClient
import BookscanBase

/// Appends every run's analytics record and teaches the strategy memory from it.
struct RunRecorder: Sendable {
    let log: AnalyticsLog?
    let memory: StrategyMemory
    let network: NetworkFingerprint
    let server: String
    let adaptive: Bool

    init(tracking: ResolvedTracking, server: String?) {
        log = tracking.analyticsDisabled
            ? nil : AnalyticsLog(path: AnalyticsLog.defaultPath(override: tracking.analyticsLog), keep: tracking.analyticsKeep)
        let adaptive = tracking.adaptive
        memory = StrategyMemory(path: StrategyMemory.defaultPath())
        network = NetworkFingerprint.current()
        self.server = NetworkFingerprint.serverID(server)
        self.adaptive = adaptive
    }

    /// Where adaptive memory starts the ladder on this network and server (always the WebSocket
    /// when adaptive memory is off).
    func preference() -> StrategyMemory.Preference {
        adaptive ? memory.preference(network: network.id, server: server) : .ladder
    }

    func record(
        _ report: ScanReport, command: String, adaptive preference: StrategyMemory.Preference = .ladder, probeSucceeded: Bool? = nil,
        display: ProgressDisplay
    ) {
        let record = AnalyticsRecord(
            run: report.run, jobId: report.jobId, streamFailures: report.streamFailures, uploadAttempts: report.uploadAttempts,
            resubmissions: report.resubmissions, spinesFound: report.spineCount, command: command, network: network.id, server: server,
            version: BookscanVersion.current,
            adaptivePolling: preference == .polling ? true : nil, adaptiveEventStream: preference == .eventStreamFirst ? true : nil,
            probeSucceeded: probeSucceeded)
        do {
            try log?.append(record)
        } catch {
            display.message("bookscan: analytics log \(log?.path ?? ""): \(error)", error: true)
        }
        _ = try? memory.learn(from: record)
    }
}
