import Foundation

/// The result of a campaign: every job's outcome, figures per fault kind, and the wall time.
package struct CampaignReport: Sendable, Codable {
    package var seed: UInt64
    package var concurrency: Int
    package var wallSeconds: Double
    package var outcomes: [JobOutcome]

    package var jobs: Int { outcomes.count }
    package var passed: Int { outcomes.count { $0.passed } }
    package var failedJobs: [JobOutcome] { outcomes.filter { !$0.passed } }
    package var byFault: [FaultSummary] { FaultSummary.summarize(outcomes) }
    /// Share of jobs complete and correct, in percent.
    package var passRate: Double { jobs == 0 ? 0 : Double(passed) * 100 / Double(jobs) }

    /// A plain-text table: one row per fault kind, then each failed job.
    package func table() -> String {
        var lines = ["fault                 jobs  passed  failed  terminal shown after written (median / max)  classifications"]
        for summary in byFault {
            let kinds = summary.classifications.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
            let delays = [summary.medianTerminalDelay, summary.maximumTerminalDelay]
                .map { $0.map { String(format: "%.2f s", $0) } ?? "-" }.joined(separator: " / ")
            lines.append(
                summary.kind.rawValue.padding(toLength: 20, withPad: " ", startingAt: 0)
                    + String(format: "%6d  %6d  %6d  ", summary.jobs, summary.passed, summary.failed)
                    + delays.padding(toLength: 44, withPad: " ", startingAt: 0) + kinds)
            for (reason, count) in summary.reasons.sorted(by: { $0.value > $1.value }) { lines.append("    ×\(count) \(reason)") }
        }
        lines.append(
            String(format: "total %d jobs, %d passed, %d failed (%.1f %% complete and correct), seed %llu, concurrency %d, %.1f s",
                jobs, passed, jobs - passed, passRate, seed, concurrency, wallSeconds))
        for job in failedJobs {
            lines.append("FAILED job \(job.job.number) \((job.job.image as NSString).lastPathComponent) \(job.job.fault): \(job.failures.joined(separator: "; "))")
            if let trace = job.trace { lines.append("    \(trace)") }
        }
        return lines.joined(separator: "\n")
    }
}
