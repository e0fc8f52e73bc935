import BookscanBase
import Foundation
import RunModel
import ScanClient

/// The totals of a batch, for the closing summary and `--json`.
struct BatchSummary: Codable, Sendable {
    struct Skip: Codable, Sendable {
        var image: String
        var reason: String
    }

    struct Failure: Codable, Sendable {
        var image: String
        var outcome: String
        var reason: String
        /// The exit code `bookscan scan` gives this photo alone (e.g. 16 for a truncated JPEG).
        var exitCode: Int32
    }

    var total: Int
    var parallel: Int
    var succeeded = 0
    var failed = 0
    var stopped = 0
    var unchanged = 0
    var skipped: [Skip] = []
    var failures: [Failure] = []
    var notStarted: [String] = []
    var strategies: [String: Int] = [:]
    var spines = 0
    var scanSeconds = 0.0
    var wallSeconds = 0.0
    var interrupted = false

    init(total: Int, parallel: Int) {
        self.total = total
        self.parallel = parallel
    }

    mutating func add(_ report: ScanReport) {
        switch report.outcome {
        case .succeeded:
            succeeded += 1
            spines += report.spineCount ?? 0
        case .stopped:
            stopped += 1
        default:
            failed += 1
            failures.append(
                Failure(
                    image: report.image, outcome: report.outcome.rawValue, reason: report.error ?? report.outcome.rawValue,
                    exitCode: ExitStatus(report).rawValue))
        }
        if let strategy = report.strategy { strategies[strategy.rawValue, default: 0] += 1 }
        scanSeconds += report.totalSeconds
    }

    var done: Int { succeeded + failed + stopped }

    func overallLine(elapsed: Duration, queued: Int) -> String {
        let seconds = max(0.001, elapsed.inSeconds)
        let perMinute = Double(done) / seconds * 60
        let remaining = queued - done
        let eta = done > 0 ? Double(remaining) * seconds / Double(done) : 0
        let width = 24
        let filled = queued > 0 ? done * width / queued : width
        return "batch \(String(repeating: "█", count: filled))\(String(repeating: "░", count: width - filled)) \(done)/\(queued)"
            + " · \(succeeded) ok, \(failed) failed · \(String(format: "%.1f", perMinute))/min · ETA \(Int(eta.rounded())) s"
    }

    func text(results: String) -> String {
        var lines = [
            "\(succeeded) succeeded, \(failed) failed, \(skipped.count) skipped\(stopped > 0 ? ", \(stopped) stopped" : "")"
                + "\(notStarted.isEmpty ? "" : ", \(notStarted.count) not started") · \(spines) spines · "
                + String(format: "%.1f s, %.1f images/min", wallSeconds, wallSeconds > 0 ? Double(done) / wallSeconds * 60 : 0)
        ]
        if !strategies.isEmpty {
            lines.append("strategies: " + strategies.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
        }
        for failure in failures { lines.append("  failed  \(failure.image): \(failure.reason)") }
        for skip in skipped { lines.append("  skipped \(skip.image): \(skip.reason)") }
        lines.append("results in \(results)")
        return lines.joined(separator: "\n")
    }
}
