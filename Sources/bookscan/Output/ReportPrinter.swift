import Foundation
import NIOConcurrencyHelpers
import RunModel
import ScanClient
import ScanProtocol

/// Renders results: JSON for scripts, one human summary line per image.
enum ReportPrinter {
    private static let stdoutLock = NIOLockedValueBox(())

    static func printJSON(_ report: ScanReport) {
        guard let data = try? WireCoding.encode(report) else { return }
        writeLine(String(decoding: data, as: UTF8.self))
    }

    static func writeJSON(_ report: ScanReport, to path: String) throws {
        let encoder = WireCoding.encoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        try encoder.encode(report).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// One accepted event as an NDJSON line.
    static func printEvent(_ event: JobEvent, path: EventPath, image: String) {
        struct Line: Encodable {
            let image: String
            let path: EventPath
            let event: JobEvent
        }
        guard let data = try? WireCoding.encode(Line(image: image, path: path, event: event)) else { return }
        writeLine(String(decoding: data, as: UTF8.self))
    }

    static func summary(_ report: ScanReport, reattach server: String?, verbose: Bool) -> String {
        let name = report.image
        let elapsed = String(format: "%.1f s", report.totalSeconds)
        switch report.outcome {
        case .succeeded:
            let rows = report.result?.rows.count ?? 0
            var line = "\(name): \(report.spineCount ?? 0) books in \(rows) row\(rows == 1 ? "" : "s") · \(elapsed) · \(strategyText(report))"
            if verbose {
                let first = report.firstEventSeconds.map { String(format: "%.2f s", $0) } ?? "–"
                let upload = report.uploadSeconds.map { String(format: "%.2f s", $0) } ?? "–"
                line += " · upload \(upload), first event \(first), \(report.polls) polls, \(report.reconnects) reconnects"
            }
            return line
        case .timedOut, .stopped:
            var line = "bookscan: \(name): \(report.error ?? "stopped watching")"
            if let job = report.jobId {
                if let server {
                    line += "\n  re-attach: bookscan watch \(job.uuidString.lowercased()) --server \(server)"
                } else {
                    line += " (the embedded service stops with bookscan, so this job cannot be re-attached)"
                }
            }
            return line
        default:
            return "bookscan: \(name): \(report.error ?? report.outcome.rawValue)"
        }
    }

    private static func strategyText(_ report: ScanReport) -> String {
        guard let strategy = report.strategy else { return "" }
        guard let reason = report.fallbackReason else { return strategy.rawValue }
        let status = report.fallbackStatus.map { " \($0)" } ?? ""
        // `sse after websocket (refused, …)`, `polling_fallback from sse (buffered, …)`.
        let from = report.fallbackFrom.map { strategy == .sse ? " after \($0.rawValue)" : " from \($0.rawValue)" } ?? ""
        return "\(strategy.rawValue)\(from) (\(reason.rawValue)\(status), \(report.fallbackPhase?.rawValue ?? ""))"
    }

    /// The numbered list of books on stdout (what a person scanned the shelf for); with `explain`, each book
    /// followed by why its title is what it is (`BookList.explained`).
    static func printBooks(_ result: ScanResult, explain: Bool = false) {
        let lines = explain ? BookList.explained(result) : BookList.lines(result)
        guard !lines.isEmpty else { return }
        writeLine(lines.joined(separator: "\n"))
    }

    private static func writeLine(_ text: String) {
        stdoutLock.withLockedValue { _ in FileHandle.standardOutput.write(Data((text + "\n").utf8)) }
    }
}
