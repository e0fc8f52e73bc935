import BookscanTestSupport
import Foundation
import ScanProtocol
import Testing

@testable import bookscan

/// Numbers from a flag, the config file or a server must never crash `bookscan`: a value that cannot
/// be used is refused with a clear error and exit 64, a wild number from the wire is clamped.
@Suite("hostile numbers")
struct HostileNumbersTests {
    let cli = CLITests()
    static var sample: String { CLITests.samples.appendingPathComponent("shelf_one_row.jpg").path }

    @Test(
        "serve refuses durations a Duration cannot hold, with a clear error and exit 64",
        arguments: [
            ["--job-ttl", "inf"], ["--job-ttl", "nan"], ["--heartbeat", "1e300"], ["--scan-step-delay", "-1"], ["--idle-timeout", "1e20"],
            ["--header-timeout", "0"],
        ])
    func serveDurations(_ arguments: [String]) async throws {
        let run = try await cli.bookscan(["serve", "--port", "0"] + arguments)
        #expect(run.exitedNormally, "trapped: \(run.stderr)")
        #expect(run.status == 64, "\(run.stderr)")
        let first = run.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("Error:") && first.contains(arguments[0]), "\(run.stderr)")
    }

    @Test("serve refuses an empty token (it is no token): exit 64 and a line naming --token", arguments: ["", "  "])
    func emptyToken(_ token: String) async throws {
        let run = try await cli.bookscan(["serve", "--port", "0", "--token", token])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("--token is empty"), "\(run.stderr)")
    }

    @Test("wild fractions and counts are drawn within the progress bar")
    func progressBarClamps() {
        #expect(ProgressBar.bar(1e308, width: 8) == "████████")
        #expect(ProgressBar.bar(-5, width: 8) == "░░░░░░░░")
        #expect(ProgressBar.bar(.nan, width: 4) == "░░░░")
        #expect(ProgressBar.bar(0.5, width: -3) == "")
        #expect(ProgressBar.percent(.infinity) == 100)
        #expect(ProgressBar.percent(part: Int.max, of: 1) == 100)
        #expect(ProgressBar.percent(part: 5, of: 0) == 0)
    }

    @Test("--poll-interval under 100 ms is refused (0 would poll in a busy loop)", arguments: ["0", "0s", "50ms", "0.01"])
    func pollIntervalFloor(_ value: String) async throws {
        let run = try await cli.bookscan(["scan", Self.sample, "--poll-interval", value, "--no-analytics"])
        #expect(run.exitedNormally, "trapped: \(run.stderr)")
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("--poll-interval") && run.stderr.contains("too short"), "\(run.stderr)")
    }

    @Test("--timeout 1e20 is refused, on the command line and from the config file")
    func hugeTimeout() async throws {
        let flag = try await cli.bookscan(["scan", Self.sample, "--timeout", "1e20", "--no-analytics"])
        #expect(flag.exitedNormally && flag.status == 64, "\(flag.stderr)")
        #expect(flag.stderr.contains("--timeout"), "\(flag.stderr)")

        let config = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: config.appendingPathComponent("bookscan"), withIntermediateDirectories: true)
        try "timeout = 1e20\n".write(to: config.appendingPathComponent("bookscan/config.toml"), atomically: true, encoding: .utf8)
        let log = config.appendingPathComponent("analytics.jsonl").path
        for command in [["scan", Self.sample], ["batch", CLITests.samples.path]] {
            let run = try await cli.bookscan(command + ["--analytics-log", log], environment: ["XDG_CONFIG_HOME": config.path])
            #expect(run.exitedNormally && run.status == 64, "\(command[0]): \(run.stderr)")
            #expect(run.stderr.contains("timeout"), "\(command[0]): \(run.stderr)")
        }
    }

    /// The limits a hostile server claims.
    static let hostileLimits =
        #"{"protocolVersion":1,"maxBytes":-5,"maxPixels":-1,"recommendedLongSide":9223372036854775807,"acceptedTypes":["image/jpeg"],"heartbeatSeconds":1e300,"jobTTLSeconds":-1e308}"#

    /// A result whose boxes and indexes are absurd.
    static let hostileResult = ScanResult(
        imageWidth: Int.max, imageHeight: -1, workingWidth: 0, workingHeight: Int.min,
        rows: [ShelfRow(index: -1, box: NormalizedBox(x: -1e308, y: 1e308, width: 1e308, height: -0.5), spineCount: -3)],
        spines: [
            Spine(
                index: -7, row: Int.max, box: NormalizedBox(x: 1e308, y: -1e308, width: 1e308, height: 1e308), confidence: 1e308,
                color: RGBColor(r: 1, g: 2, b: 3), pose: .upright,
                // JSON carries no infinity, so the corners are given (the box's own would overflow).
                polygon: NormalizedQuad(
                    topLeft: NormalizedPoint(x: 1e308, y: -1e308), topRight: NormalizedPoint(x: -1e308, y: 1e308),
                    bottomRight: NormalizedPoint(x: 1e308, y: 1e308), bottomLeft: NormalizedPoint(x: -5, y: 1e308)),
                title: String(repeating: "\u{202E}T", count: 2_000), author: "\u{0}\u{1B}[2J", textConfidence: 1e308)
        ], timings: [])

    @Test(
        "a server sending extreme numbers (fraction 1e308 and -5, seq Int.max, heartbeat 1e300, negative limits) ends cleanly",
        arguments: ["polling", "auto"])
    func hostileServer(_ strategy: String) async throws {
        // A result the wire cannot carry would make the script answer nothing, and the run wait for its timeout.
        _ = try WireCoding.encode(Self.hostileResult)
        let service = try ScriptedService(
            limits: Self.hostileLimits,
            upload: { _ in .snapshot(state: .running, stage: .decoding, fraction: -5, seq: 1) },
            poll: { n in
                switch n {
                case 0: .snapshot(state: .running, stage: .findingRows, fraction: 1e308, seq: 2)
                case 1: .snapshot(state: .running, stage: .segmentingSpines, fraction: -1e308, seq: Int.max - 1)
                default: .snapshot(state: .succeeded, stage: .done, fraction: 1e308, seq: Int.max, result: Self.hostileResult)
                }
            })
        defer { service.stop() }
        let annotated = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString).jpg").path
        let csv = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString).csv").path
        let run = try await cli.bookscan([
            "scan", Self.sample, "--server", service.url, "--strategy", strategy, "--poll-interval", "100ms", "--events", "--json",
            "--annotate", annotated, "--csv", csv, "--no-analytics",
        ])
        defer { for file in [annotated, csv] { try? FileManager.default.removeItem(atPath: file) } }
        #expect(run.exitedNormally, "trapped: \(run.stderr)")
        #expect(run.status == 0, "\(run.stderr)")
        // The whole stream the user sees: every fraction shown lies in 0…1 and never goes back.
        let events = run.stdout.split(separator: "\n").compactMap { line -> [String: Any]? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]).flatMap { $0["event"] as? [String: Any] }
        }
        let fractions = events.compactMap { $0["fraction"] as? Double }
        #expect(!fractions.isEmpty, "\(run.stdout)")
        #expect(fractions.allSatisfy { (0...1).contains($0) }, "\(fractions)")
        let shown = run.stderr.split(separator: "\n").filter { $0.hasPrefix("shelf_one_row.jpg: ") && $0.contains("%") }
        let percents = shown.compactMap { line in line.split(separator: " ").dropFirst().first.flatMap { Int($0.dropLast()) } }
        #expect(!percents.isEmpty && percents.allSatisfy { (0...100).contains($0) }, "\(run.stderr)")
        #expect(percents == percents.sorted(), "\(run.stderr)")
        #expect(percents.last == 100, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: annotated), "\(run.stderr)")
        // The CSV: one book, its numbers clamped (book and row 1-based from indexes clamped to 0… , box in pixels, not negative).
        let rows = (try? String(contentsOfFile: csv, encoding: .utf8))?.split(separator: "\r\n").map { $0.split(separator: ",", omittingEmptySubsequences: false) } ?? []
        #expect(rows.count == 2, "\(rows)")
        if rows.count == 2 {
            let numbers = [1, 2, 3] + Array(8...11)
            #expect(numbers.allSatisfy { rows[1].indices.contains($0) && (Int(rows[1][$0]) ?? -1) >= 0 }, "\(rows[1])")
            #expect(rows[1][1] == "1", "\(rows[1])")
        }

        // Without --json the numbered list goes to stdout: one line, no control or bidi characters from the server.
        let listed = try await cli.bookscan([
            "scan", Self.sample, "--server", service.url, "--strategy", strategy, "--poll-interval", "100ms", "--no-analytics",
        ])
        #expect(listed.exitedNormally && listed.status == 0, "\(listed.stderr)")
        let list = listed.stdout.split(separator: "\n")
        #expect(list.count == 1 && list.first?.hasPrefix("1. ") == true, "\(listed.stdout)")
        #expect(!listed.stdout.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" || $0 == "\u{0}" }, "\(listed.stdout)")
    }
}
