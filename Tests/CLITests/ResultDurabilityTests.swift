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

    @Test(
        "every result and books.csv: fsync of the temporary file, rename, fsync of the folder",
        .enabled(if: FileManager.default.isExecutableFile(atPath: strace), "needs strace"))
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
}
