import BookscanTestSupport
import Foundation
import Testing

/// A batch's result files and `books.csv` survive a crash like every other report: each is a temporary
/// file fsynced before it is renamed into place, and the folder is fsynced after the rename (without
/// that, the rename itself may be lost). Observed with strace on the real binary.
@Suite("batch results are durable")
struct ResultDurabilityTests {
    let cli = CLITests()
    static let strace = "/usr/bin/strace"

    /// One traced call: `fsync` of a path, or `rename` to a path.
    enum Call: Equatable {
        case fsync(String)
        case rename(to: String)
    }

    /// The fsync and rename calls of a `strace -f -y` log, in the order they started (paths as strace
    /// shows them; a call another thread interrupted is logged `<unfinished ...>`, its end `resumed`).
    static func calls(_ log: String) -> [Call] {
        log.split(separator: "\n").compactMap { line in
            guard !line.contains("resumed>"), !line.contains("= -1") else { return nil }
            if let open = line.range(of: "fsync("), let start = line[open.upperBound...].firstIndex(of: "<"),
                let end = line[start...].firstIndex(of: ">")
            {
                return .fsync(String(line[line.index(after: start)..<end]))
            }
            if line.contains("rename"), let last = line.range(of: "\"", options: .backwards),
                let first = line[..<last.lowerBound].range(of: "\"", options: .backwards)
            {
                return .rename(to: String(line[first.upperBound..<last.lowerBound]))
            }
            return nil
        }
    }

    /// strace is there (scripts/bootstrap installs it); under `CI=true` its absence fails the run instead.
    static var traceable: Bool {
        FileManager.default.isExecutableFile(atPath: strace) || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    @Test(
        "every result and books.csv: fsync of the temporary file, rename, fsync of the folder",
        .enabled(if: traceable, "needs strace (scripts/bootstrap installs it)"))
    func fsyncedWrites() async throws {
        let root = try BatchTests.folder(["a.jpg": try BatchTests.photo(seed: 90), "sub/b.jpg": try BatchTests.photo(seed: 91)])
        let log = root + "-strace.log"
        let run = try await cli.bookscan(
            ["batch", root, "--recursive", "--quiet", "--no-analytics"],
            launcher: [Self.strace, "-f", "-y", "-e", "trace=fsync,rename,renameat,renameat2", "-o", log])
        #expect(run.status == 0, "\(run.stderr)")
        let calls = Self.calls(try String(contentsOfFile: log, encoding: .utf8))
        let results = root + "/.bookscan"
        for (folder, name) in [(results, "a.jpg.json"), (results + "/sub", "b.jpg.json"), (results, "books.csv")] {
            let renamed = calls.firstIndex { call in
                if case .rename(let target) = call { return target == name || target.hasSuffix("/" + name) } else { return false }
            }
            guard let renamed else {
                Issue.record("\(name) was not renamed into place: \(calls)")
                continue
            }
            let fileSynced = calls[..<renamed].contains { call in
                if case .fsync(let path) = call { return path.hasPrefix(folder + "/.\(name).tmp-") } else { return false }
            }
            #expect(fileSynced, "\(name): no fsync of its temporary file before the rename: \(calls)")
            #expect(calls[renamed...].contains(.fsync(folder)), "\(name): no fsync of \(folder) after the rename: \(calls)")
        }
    }

    @Test(
        "a scan's analytics record is fsynced once appended; the strategy memory is fsynced, renamed, its folder fsynced",
        .enabled(if: traceable, "needs strace (scripts/bootstrap installs it)"))
    func fsyncedAnalyticsAndMemory() async throws {
        let root = try BatchTests.folder(["a.jpg": try BatchTests.photo(seed: 92)])
        let analytics = root + "/state/analytics.jsonl", memory = root + "/xdg/bookscan/strategy-memory.json"
        let log = root + "-strace.log"
        let run = try await cli.bookscan(
            ["scan", root + "/a.jpg", "--quiet", "--analytics-log", analytics, "--adaptive"],
            environment: ["XDG_STATE_HOME": root + "/xdg"],
            launcher: [Self.strace, "-f", "-y", "-e", "trace=fsync,rename,renameat,renameat2", "-o", log])
        #expect(run.status == 0, "\(run.stderr)")
        let calls = Self.calls(try String(contentsOfFile: log, encoding: .utf8))
        #expect(calls.contains(.fsync(analytics)), "no fsync of \(analytics): \(calls)")
        let saved = try #require(
            calls.firstIndex { call in if case .rename(let target) = call { target.hasSuffix("strategy-memory.json") } else { false } },
            "the strategy memory was not renamed into place: \(calls)")
        let memoryFolder = (memory as NSString).deletingLastPathComponent
        #expect(calls[..<saved].contains { call in if case .fsync(let path) = call { path.hasPrefix(memoryFolder + "/.strategy-memory.json.tmp-") } else { false } }, "\(calls)")
        #expect(calls[saved...].contains(.fsync(memoryFolder)), "\(calls)")
    }
}
