import BookscanBase
import FaultProxy
import Foundation
import ImagePreparation
import Logging
import RunModel
import ScanAnalytics
import ScanClient
import ScanEngine
import ScanProtocol
import ScanService

/// Runs a fault campaign: one real in-process service; per image a fault-free baseline; then every
/// job through its own fault proxy with the real client (`ScanSession`, the CLI's analytics record
/// path), `concurrency` at a time; then checks every job and its analytics record.
package struct CampaignRunner: Sendable {
    package let configuration: CampaignConfiguration

    package init(configuration: CampaignConfiguration) {
        self.configuration = configuration
    }

    /// The jobs the configuration draws (the same for the same seed and images).
    package func jobs() throws(CampaignError) -> [CampaignJob] {
        FaultCatalogue(images: try preparedSizes(), maxEventsBeforeFault: configuration.maxEventsBeforeFault, kinds: configuration.kinds)
            .draw(jobs: configuration.jobs, seed: configuration.seed)
    }

    /// Runs every job; `finished` is called as each one ends (from any task).
    package func run(finished: @escaping @Sendable (JobOutcome) -> Void = { _ in }) async throws -> CampaignReport {
        let jobs = try jobs()
        let clock = ContinuousClock()
        let started = clock.now
        var logger = Logger(label: "fault-campaign.service")
        logger.logLevel = .critical
        var service = ServiceConfiguration(workers: configuration.workers, heartbeatInterval: configuration.heartbeat)
        service.faults.scanStepDelay = configuration.scanStepDelay
        service.engine.titles = .off  // the campaign tests how progress travels; its synthetic shelves carry no titles to read
        let server = try await EmbeddedScanService.start(configuration: service, logger: logger)
        let logPath = configuration.analyticsLog ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("fault-campaign-\(getpid())-\(UUID().uuidString.prefix(8)).jsonl").path
        let log = AnalyticsLog(path: logPath)
        do {
            let baselines = try await baselines(port: server.port)
            var outcomes = await runAll(jobs, port: server.port, baselines: baselines, log: log, finished: finished)
            checkRecords(&outcomes, log: log)
            await server.stop()
            if configuration.analyticsLog == nil { try? FileManager.default.removeItem(atPath: logPath) }
            return CampaignReport(
                seed: configuration.seed, concurrency: configuration.concurrency, wallSeconds: (clock.now - started).inSeconds,
                outcomes: outcomes.sorted { $0.job.number < $1.job.number })
        } catch {
            await server.stop()
            throw error
        }
    }

    private var preparer: ImagePreparer { ImagePreparer(longSide: configuration.longSide) }

    private func preparedSizes() throws(CampaignError) -> [(path: String, uploadBytes: Int)] {
        guard !configuration.images.isEmpty else { throw .noImages }
        var sizes: [(path: String, uploadBytes: Int)] = []
        for path in configuration.images {
            do throws(PrepareError) { sizes.append((path, try preparer.prepare(path: path).jpeg.count)) } catch {
                throw .unreadableImage(path, error.description)
            }
        }
        return sizes
    }

    /// Each image scanned once with no proxy and no fault: the result every faulted job must equal.
    private func baselines(port: Int) async throws -> [String: ScanResult] {
        try await withThrowingTaskGroup(of: (String, ScanResult).self) { group in
            for image in configuration.images {
                group.addTask {
                    let report = await session(baseURL: "http://127.0.0.1:\(port)", mode: .auto).scan(path: image, preparer: preparer)
                    guard report.outcome == .succeeded, let result = report.result else {
                        throw CampaignError.baselineFailed(image, report.error ?? report.outcome.rawValue)
                    }
                    return (image, result.withoutTimings)
                }
            }
            var results: [String: ScanResult] = [:]
            for try await (image, result) in group { results[image] = result }
            return results
        }
    }

    private func runAll(
        _ jobs: [CampaignJob], port: Int, baselines: [String: ScanResult], log: AnalyticsLog, finished: @escaping @Sendable (JobOutcome) -> Void
    ) async -> [JobOutcome] {
        await withTaskGroup(of: JobOutcome.self) { group in
            var pending = jobs[...]
            var outcomes: [JobOutcome] = []
            func startNext() {
                guard let job = pending.popFirst() else { return }
                group.addTask { await run(job, port: port, baseline: baselines[job.image], log: log) }
            }
            for _ in 0..<configuration.concurrency { startNext() }
            for await outcome in group {
                finished(outcome)
                outcomes.append(outcome)
                startNext()
            }
            return outcomes
        }
    }

    /// One job: its own proxy in front of the shared service, the real client, the checks that
    /// need no analytics read-back, and the record appended exactly as the CLI appends it.
    private func run(_ job: CampaignJob, port: Int, baseline: ScanResult?, log: AnalyticsLog) async -> JobOutcome {
        var outcome = JobOutcome(job: job, jobId: nil, outcome: "not_run", classification: nil, seconds: 0, failures: [], trace: nil)
        let proxy: FaultProxy
        do { proxy = try await FaultProxy.start(upstreamPort: port, plan: job.fault.plan()) } catch {
            outcome.failures = ["the fault proxy did not start: \(error)"]
            return outcome
        }
        let recorder = DisplayRecorder()
        var display = ScanSession.Display()
        display.tracker = recorder.observer
        let report = await session(baseURL: proxy.baseURL, mode: job.fault.mode).scan(path: job.image, preparer: preparer, display: display)
        await proxy.stop()
        outcome.outcome = report.outcome.rawValue
        outcome.jobId = report.jobId?.uuidString.lowercased()
        outcome.seconds = report.totalSeconds
        var failures: [String] = []
        if report.outcome != .succeeded { failures.append("outcome \(report.outcome.rawValue): \(report.error ?? "no error")") }
        if report.outcome == .succeeded, report.result?.withoutTimings != baseline {
            failures.append("result differs from the fault-free baseline (\(report.spineCount ?? -1) spines, baseline \(baseline?.spines.count ?? -1))")
        }
        failures += recorder.problems(succeeded: report.outcome == .succeeded, baseline: baseline)
        // The counters `--json` and the analytics record carry count only what was emitted as news.
        let emitted = recorder.emittedByPath
        if report.eventsByPath != emitted { failures.append("report counts events \(report.eventsByPath), the stream emitted \(emitted)") }
        outcome.emittedByPath = emitted
        outcome.terminalDelaySeconds = recorder.terminalDelaySeconds
        if job.fault.kind == .uploadReset, report.uploadAttempts < 2 { failures.append("the upload was not cut (\(report.uploadAttempts) attempt)") }
        let record = AnalyticsRecord(
            run: report.run, jobId: report.jobId, streamFailures: report.streamFailures, uploadAttempts: report.uploadAttempts,
            resubmissions: report.resubmissions, spinesFound: report.spineCount, command: "scan", network: NetworkFingerprint.current().id,
            server: NetworkFingerprint.serverID(nil), version: BookscanVersion.current)
        do { try log.append(record) } catch { failures.append("analytics record not written: \(error)") }
        outcome.failures = failures
        outcome.trace = Self.trace(report, proxy: proxy)
        return outcome
    }

    /// What the proxy did to each connection, then the client's counters: enough to see why a job failed.
    static func trace(_ report: ScanReport, proxy: FaultProxy) -> String {
        let connections = proxy.requests.map { request, fault in
            "\(request.kind)#\(request.ordinal) \(request.path.split(separator: "/").last ?? "") → \(fault)"
        }
        let events = report.eventsByPath.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let timing = [("upload", report.uploadSeconds), ("first event", report.firstEventSeconds), ("total", report.totalSeconds)]
            .compactMap { name, value in value.map { String(format: "%@ %.2f s", name, $0) } }.joined(separator: ", ")
        return "connections: \(connections.joined(separator: "; ")) | uploads \(report.uploadAttempts), socket failures \(report.socketFailures), "
            + "reconnects \(report.reconnects), polls \(report.polls), events {\(events)}, \(timing)"
    }

    /// Reads the log back: each job must have exactly one record, classified as its fault implies.
    private func checkRecords(_ outcomes: inout [JobOutcome], log: AnalyticsLog) {
        let (records, skipped) = log.read()
        let byJob = Dictionary(grouping: records) { $0.jobId ?? "" }
        for index in outcomes.indices {
            var outcome = outcomes[index]
            defer { outcomes[index] = outcome }
            guard outcome.outcome != "not_run" else { continue }
            guard let jobId = outcome.jobId, let matching = byJob[jobId], let record = matching.first else {
                outcome.failures.append("no analytics record")
                continue
            }
            if matching.count != 1 { outcome.failures.append("\(matching.count) analytics records, expected 1") }
            outcome.classification = ExpectedClassification.describe(record)
            if record.outcome.rawValue != outcome.outcome { outcome.failures.append("record outcome \(record.outcome.rawValue), run \(outcome.outcome)") }
            if let emitted = outcome.emittedByPath, record.eventsByPath != emitted {
                outcome.failures.append("record counts events \(record.eventsByPath), the stream emitted \(emitted)")
            }
            outcome.failures += outcome.job.fault.expected.mismatches(record)
        }
        if skipped > 0, let index = outcomes.indices.first { outcomes[index].failures.append("\(skipped) unreadable analytics lines") }
    }

    private func session(baseURL: String, mode: TrackerMode) -> ScanSession {
        var logger = Logger(label: "fault-campaign.client")
        logger.logLevel = .critical
        let api = ScanAPI(baseURL: baseURL, token: nil)
        // As `bookscan` does: the server's heartbeat (from /v1/limits) tunes the silence rule and the hedged poll.
        let settings = configuration.tracker.adapted(toHeartbeat: configuration.heartbeat.inSeconds)
        let tracker = ProgressTracker(api: api, mode: mode, settings: settings, logger: logger)
        return ScanSession(api: api, tracker: tracker, timeout: configuration.jobTimeout)
    }
}

extension ScanResult {
    /// The result without stage timings (the only part that differs between identical scans).
    var withoutTimings: ScanResult {
        var copy = self
        copy.timings = []
        return copy
    }
}
