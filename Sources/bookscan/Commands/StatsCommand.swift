import ArgumentParser
import Foundation
import ScanAnalytics
import ScanProtocol

/// `bookscan stats`: success-rate summaries of the analytics log.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Summarise the analytics log: completion, WebSocket success and fallback rates against their targets.",
        discussion: """
            With --html FILE the same summary is written as one self-contained HTML page (charts inline, no script); \
            exit 21 when it cannot be written.
            """
    )

    @Option(help: "Analytics log to read (default: $BOOKSCAN_ANALYTICS_LOG or $XDG_STATE_HOME/bookscan/analytics.jsonl).")
    var log: String?
    @Option(help: "Only runs since this long ago (24h, 7d, 30m) or this date (2026-11-01).") var since: String?
    @Option(help: "Group by strategy, network, day or server.") var by: StatsGrouping = .strategy
    @Flag(help: "Print the numbers as JSON.") var json = false
    @Option(
        help: ArgumentHelp(
            "Write the summary as one self-contained HTML page (inline charts, no script, nothing loaded) to this file.",
            valueName: "file"))
    var html: String?

    func run() throws {
        let path = AnalyticsLog.defaultPath(override: log)
        let cutoff = try since.map(Self.parseSince)
        let (all, skipped) = AnalyticsLog(path: path).read()
        let records = all.filter { record in cutoff.map { record.timestamp >= $0 } ?? true }
        let verdicts =
            by == .network || (html != nil && !records.isEmpty)
            ? StatsSummary.networkVerdicts(StrategyMemory(path: StrategyMemory.defaultPath()).entries().entries) : [:]
        let summary = StatsSummary(records: records, skippedLines: skipped, groupedBy: by, verdicts: verdicts)
        if let html {
            let report = StatsHTMLReport(
                summary: summary, timeline: NetworkTimeline(records: records, verdicts: verdicts), source: path, since: cutoff)
            do {
                try ReportFile.write(report.render(), to: html)
            } catch {
                FileHandle.standardError.write(Data("bookscan: \(html): could not write the HTML report: \(error.reason)\n".utf8))
                throw ExitStatus.outputUnwritable.exitCode
            }
        }
        if records.isEmpty && !json {
            print("No runs recorded\(cutoff == nil ? "" : " in that period") in \(path) yet. Scan something with `bookscan scan PHOTO.jpg`.")
            if skipped > 0 { print("(\(skipped) unreadable line\(skipped == 1 ? "" : "s") skipped)") }
            if let html { print("Wrote an HTML report that says so to \(html).") }
            return
        }
        if json {
            let encoder = WireCoding.encoder()
            encoder.outputFormatting.insert(.prettyPrinted)
            print(String(decoding: try encoder.encode(summary), as: UTF8.self))
        } else if let html {
            print("Wrote the HTML report of \(summary.runs) run\(summary.runs == 1 ? "" : "s") in \(path) to \(html).")
        } else {
            print(StatsRenderer.render(summary, path: path))
        }
    }

    static func parseSince(_ text: String) throws -> Date {
        let units: [(String, Double)] = [("m", 60), ("h", 3600), ("d", 86400), ("w", 604800)]
        for (suffix, seconds) in units where text.hasSuffix(suffix) {
            if let value = Double(text.dropLast()), value >= 0 { return Date().addingTimeInterval(-value * seconds) }
        }
        if let date = try? Date(text, strategy: .iso8601.year().month().day()) { return date }
        if let date = try? Date(text, strategy: .iso8601) { return date }
        throw ValidationError("--since takes 24h, 7d, 30m or a date like 2026-11-01, not '\(text)'")
    }
}

extension StatsGrouping: ExpressibleByArgument {}
