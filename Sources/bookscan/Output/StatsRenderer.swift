import Foundation
import ScanAnalytics

/// The human view of `bookscan stats`: rates against targets, percentiles, reasons, a bar chart.
enum StatsRenderer {
    static func render(_ s: StatsSummary, path: String) -> String {
        var lines: [String] = ["\(s.runs) run\(s.runs == 1 ? "" : "s") in \(path)" + (s.skippedLines > 0 ? " (\(s.skippedLines) unreadable lines skipped)" : "")]
        lines.append("")
        lines.append(rate("completion", s.completion, "≥"))
        lines.append(rate("WebSocket success", s.webSocketSuccess, "≥"))
        lines.append(rate("SSE success", s.eventStreamSuccess, "≥"))
        lines.append(rate("polling fallback", s.pollingFallback, "<"))
        if s.timedOut + s.interrupted > 0 {
            lines.append("not finished        \(s.timedOut) timed out, \(s.interrupted) interrupted (left out of the rates)")
        }
        lines.append("")
        lines.append("time per strategy          first event p50 / p95     total p50 / p95")
        for strategy in s.total.keys.sorted() {
            let first = s.firstEvent[strategy], total = s.total[strategy]
            lines.append(
                "  " + strategy.padding(toLength: 24, withPad: " ", startingAt: 0) + seconds(first?.p50) + " / " + seconds(first?.p95)
                    + "      " + seconds(total?.p50) + " / " + seconds(total?.p95))
        }
        if !s.fallbackReasons.isEmpty {
            lines.append("")
            lines.append("fallback reasons")
            let largest = s.fallbackReasons.values.max() ?? 1
            for (reason, count) in s.fallbackReasons.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) {
                lines.append("  " + reason.padding(toLength: 36, withPad: " ", startingAt: 0) + bar(Double(count) / Double(largest), width: 20) + " \(count)")
            }
        }
        lines.append("")
        lines.append("WebSocket success by \(s.groupedBy.rawValue)")
        for group in s.groups {
            let value = group.webSocketSuccess.value
            let label = group.key.padding(toLength: 24, withPad: " ", startingAt: 0)
            let chart = value.map { bar($0, width: 24) + " " + percent($0) } ?? "(no WebSocket runs)".padding(toLength: 24, withPad: " ", startingAt: 0)
            var line = "  \(label)\(chart)  \(group.runs) run\(group.runs == 1 ? "" : "s"), completion \(group.completion.value.map(percent) ?? "–")"
            if let verdict = group.verdict { line += ", \(verdict)" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    private static func rate(_ name: String, _ rate: StatsSummary.Rate, _ comparison: String) -> String {
        let value = rate.value.map(percent) ?? "–"
        let verdict = rate.met.map { $0 ? "met" : "NOT met" } ?? "no data"
        return name.padding(toLength: 20, withPad: " ", startingAt: 0) + value.padding(toLength: 8, withPad: " ", startingAt: 0)
            + "(\(rate.numerator)/\(rate.denominator))".padding(toLength: 12, withPad: " ", startingAt: 0)
            + "target \(comparison) \(percent(rate.target)): \(verdict)"
    }

    static func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }

    private static func seconds(_ value: Double?) -> String {
        (value.map { String(format: "%.2f s", $0) } ?? "–").padding(toLength: 7, withPad: " ", startingAt: 0)
    }

    private static func bar(_ fraction: Double, width: Int) -> String {
        let filled = Int((max(0, min(1, fraction)) * Double(width)).rounded())
        return String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
    }
}
