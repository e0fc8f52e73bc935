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

    /// Whether adaptive memory says to poll on this network and server.
    func prefersPolling() -> Bool {
        adaptive && memory.prefersPolling(network: network.id, server: server)
    }

    func record(_ report: ScanReport, command: String, adaptivePolling: Bool? = nil, probeSucceeded: Bool? = nil, display: ProgressDisplay) {
        let record = AnalyticsRecord(
            report: report, command: command, network: network.id, server: server, version: BookscanVersion.current,
            adaptivePolling: adaptivePolling, probeSucceeded: probeSucceeded)
        do {
            try log?.append(record)
        } catch {
            display.message("bookscan: analytics log \(log?.path ?? ""): \(error)", error: true)
        }
        _ = try? memory.learn(from: record)
    }
}
