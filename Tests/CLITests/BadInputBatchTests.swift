import BookscanTestSupport
import FaultProxy
import Foundation
import Logging
import ScanService
import Testing

/// `bookscan batch` meeting bad input: each file fails with its own reason and exit code, the batch goes on.
@Suite("bad input in a batch")
struct BadInputBatchTests {
    let cli = CLITests()

    func summary(_ stdout: String) throws -> [String: Any] {
        let line = try #require(stdout.split(separator: "\n").last)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("batch over the corpus: the control photo succeeds, each bad file fails with its own reason and exit code")
    func corpusBatch() async throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("corpus-results-\(UUID().uuidString)").path
        let run = try await cli.bookscan(["batch", BadInputCorpusTests.corpus.path, "--out", out, "--json", "--quiet", "--jobs", "2"])
        #expect(run.exitedNormally)
        #expect(run.status == 2, "\(run.stderr)")
        let s = try summary(run.stdout)
        #expect(s["succeeded"] as? Int == 1)
        #expect(s["failed"] as? Int == BadInputCorpusTests.cases.count)
        let failures = (s["failures"] as? [[String: Any]] ?? []).reduce(into: [String: [String: Any]]()) { $0[$1["image"] as? String ?? ""] = $1 }
        for item in BadInputCorpusTests.cases {
            let failure = failures[item.file]
            #expect(failure?["exitCode"] as? Int == Int(item.status), "\(item.file): \(failure ?? [:])")
            #expect((failure?["reason"] as? String)?.contains(item.words) == true, "\(item.file): \(failure ?? [:])")
        }
        let skipped = (s["skipped"] as? [[String: Any]] ?? []).compactMap { $0["image"] as? String }
        #expect(skipped == ["README.md"])
    }

    @Test("a photo deleted after the folder was listed fails on its own (19) and the batch goes on; a FIFO is skipped")
    func vanishesBeforeItsTurn() async throws {
        let service = try await EmbeddedScanService.startQuietly()
        let root = try BatchTests.folder([
            "a.jpg": try BatchTests.photo(seed: 31), "b.jpg": try BatchTests.photo(seed: 32), "c.jpg": try BatchTests.photo(seed: 33),
        ])
        #expect(mkfifo(root + "/d.jpg", 0o644) == 0)
        let doomed = root + "/b.jpg"
        // The batch lists the folder before it sends anything (its first request is GET /v1/limits),
        // so deleting b.jpg when a request arrives deletes it after discovery and before its turn.
        let proxy = try await FaultProxy.start(upstreamPort: service.port) { _ in
            unlink(doomed)
            return .passThrough
        }
        defer {
            Task {
                await proxy.stop()
                await service.stop()
            }
        }
        let run = try await cli.bookscan(["batch", root, "--server", proxy.baseURL, "--json", "--quiet", "--jobs", "1"])
        #expect(run.exitedNormally)
        #expect(run.status == 2, "\(run.stderr)")
        let s = try summary(run.stdout)
        #expect(s["succeeded"] as? Int == 2)
        let failures = s["failures"] as? [[String: Any]] ?? []
        #expect(failures.count == 1)
        #expect(failures.first?["image"] as? String == "b.jpg")
        #expect(failures.first?["exitCode"] as? Int == 19)
        #expect((failures.first?["reason"] as? String)?.contains("vanished (deleted after the folder was listed") == true, "\(failures)")
        #expect(run.stderr.contains("bookscan: b.jpg: vanished"))
        let skipped = (s["skipped"] as? [[String: Any]] ?? []).map { ($0["image"] as? String ?? "", $0["reason"] as? String ?? "") }
        #expect(skipped.count == 1)
        #expect(skipped.first?.0 == "d.jpg" && skipped.first?.1.contains("not a regular file") == true)
    }
}
