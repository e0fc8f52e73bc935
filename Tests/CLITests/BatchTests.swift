import BookscanTestSupport
import FaultProxy
import Foundation
import ImageKit
import Logging
import ScanService
import Testing

/// `bookscan batch` run as a user runs it, on folders built in the test.
@Suite("bookscan batch")
struct BatchTests {
    let cli = CLITests()

    /// A small synthetic shelf photo (fast to scan in debug builds).
    static func photo(seed: Int) throws -> [UInt8] { try SyntheticShelf.jpeg(width: 480, height: 360, books: 8, seed: seed) }

    static func folder(_ files: [String: [UInt8]]) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("batch-\(UUID().uuidString)").path
        for (name, bytes) in files {
            let path = root + "/" + name
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        return root
    }

    func summary(_ stdout: String) throws -> [String: Any] {
        let line = try #require(stdout.split(separator: "\n").last)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test("good photos succeed; each bad file fails with its reason; other files are skipped; exit 2")
    func mixedFolder() async throws {
        let good = try Self.photo(seed: 1)
        let root = try Self.folder([
            "a.jpg": good, "B.JPEG": try Self.photo(seed: 2), "sub/c.jpg": try Self.photo(seed: 3),
            "corrupt.jpg": [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 0x55, count: 300),
            "png-renamed.jpg": [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 1, count: 40),
            "empty.jpg": [], "notes.txt": Array("not a photo".utf8),
        ])
        let run = try await cli.bookscan(["batch", root, "--recursive", "--json", "--quiet", "--jobs", "3"])
        #expect(run.status == 2, "\(run.stderr)")
        let s = try summary(run.stdout)
        #expect(s["succeeded"] as? Int == 3)
        #expect(s["failed"] as? Int == 3)
        let failures = (s["failures"] as? [[String: Any]] ?? []).reduce(into: [String: String]()) { $0[$1["image"] as? String ?? ""] = $1["reason"] as? String }
        #expect(failures["corrupt.jpg"]?.contains("truncated") == true)  // its APP0 segment runs past the end
        #expect(failures["png-renamed.jpg"]?.contains("PNG") == true)
        #expect(failures["empty.jpg"]?.contains("empty") == true)
        let skipped = (s["skipped"] as? [[String: Any]] ?? []).compactMap { $0["image"] as? String }
        #expect(skipped == ["notes.txt"])
        for name in ["a.jpg", "B.JPEG", "sub/c.jpg", "corrupt.jpg"] {
            #expect(FileManager.default.fileExists(atPath: root + "/.bookscan/" + name + ".json"))
        }
    }

    @Test("--resume rescans nothing unchanged and rescans a changed photo")
    func resume() async throws {
        let root = try Self.folder(["one.jpg": try Self.photo(seed: 4), "two.jpg": try Self.photo(seed: 5)])
        #expect(try await cli.bookscan(["batch", root, "--quiet"]).status == 0)
        let again = try await cli.bookscan(["batch", root, "--resume", "--json", "--quiet"])
        #expect(again.status == 0)
        #expect(try summary(again.stdout)["unchanged"] as? Int == 2)
        #expect(try summary(again.stdout)["succeeded"] as? Int == 0)
        try Data(try Self.photo(seed: 6)).write(to: URL(fileURLWithPath: root + "/two.jpg"))
        let changed = try await cli.bookscan(["batch", root, "--resume", "--json", "--quiet"])
        #expect(try summary(changed.stdout)["unchanged"] as? Int == 1)
        #expect(try summary(changed.stdout)["succeeded"] as? Int == 1)
    }

    @Test("sockets dropped in the middle of a batch: every job still completes")
    func faultyWebSocket() async throws {
        let service = try await EmbeddedScanService.startQuietly(ServiceConfiguration().injecting(FaultSeams(scanStepDelay: .milliseconds(20))))
        let proxy = try await FaultProxy.start(upstreamPort: service.port) { $0.isUpgrade ? .dropAfterEvents(2) : .passThrough }
        defer {
            Task {
                await proxy.stop()
                await service.stop()
            }
        }
        var files: [String: [UInt8]] = [:]
        for i in 0..<6 { files["p\(i).jpg"] = try Self.photo(seed: 10 + i) }
        let root = try Self.folder(files)
        let run = try await cli.bookscan(["batch", root, "--server", proxy.baseURL, "--json", "--quiet", "--jobs", "3", "--poll-interval", "300ms"])
        #expect(run.status == 0, "\(run.stderr)")
        let s = try summary(run.stdout)
        #expect(s["succeeded"] as? Int == 6)
        let strategies = s["strategies"] as? [String: Int] ?? [:]
        #expect(strategies["websocket"] == nil)
    }

    @Test("a batch follows all its jobs on one shared events socket (one upgrade, to /v1/events); --socket-per-job opens one per job; same results either way")
    func sharedEventSocket() async throws {
        let service = try await EmbeddedScanService.startQuietly(ServiceConfiguration().injecting(FaultSeams(scanStepDelay: .milliseconds(10))))
        let proxy = try await FaultProxy.start(upstreamPort: service.port) { _ in .passThrough }
        defer {
            Task {
                await proxy.stop()
                await service.stop()
            }
        }
        var files: [String: [UInt8]] = [:]
        for i in 0..<6 { files["p\(i).jpg"] = try Self.photo(seed: 30 + i) }
        let root = try Self.folder(files)
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("batch-shared-\(UUID().uuidString).jsonl").path
        let shared = try await cli.bookscan(["batch", root, "--server", proxy.baseURL, "--json", "--quiet", "--jobs", "3", "--analytics-log", log])
        #expect(shared.status == 0, "\(shared.stderr)")
        #expect(try summary(shared.stdout)["succeeded"] as? Int == 6)
        #expect(try summary(shared.stdout)["strategies"] as? [String: Int] == ["websocket": 6])
        let upgrades = proxy.requests.filter { $0.0.isUpgrade }.map(\.0.path)
        #expect(upgrades == ["/v1/events"], "one shared socket: \(upgrades)")
        #expect(proxy.acceptedUpgrades == 1)
        // Each job is still its own record, carried by the WebSocket.
        let records = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(records.count == 6 && records.allSatisfy { $0.contains(#""strategy":"websocket""#) })
        let sharedResults = try (0..<6).map { try String(contentsOfFile: root + "/.bookscan/p\($0).jpg.json", encoding: .utf8) }

        let perJob = try await cli.bookscan(["batch", root, "--server", proxy.baseURL, "--json", "--quiet", "--jobs", "3", "--socket-per-job"])
        #expect(perJob.status == 0, "\(perJob.stderr)")
        let all = proxy.requests.filter { $0.0.isUpgrade }.map(\.0.path)
        // One socket per job (an upgrade that raced its upload is refused and retried: more requests, 6 sockets).
        #expect(all.count >= 7 && all.dropFirst().allSatisfy { $0.hasPrefix("/v1/scans/") }, "one socket per job: \(all)")
        #expect(proxy.acceptedUpgrades == 7)
        // The same books either way.
        for (i, before) in sharedResults.enumerated() {
            let after = try String(contentsOfFile: root + "/.bookscan/p\(i).jpg.json", encoding: .utf8)
            #expect(Self.spineCount(before) == Self.spineCount(after) && Self.spineCount(before) != nil)
        }
    }

    static func spineCount(_ json: String) -> Int? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any] else { return nil }
        return (object["report"] as? [String: Any])?["spineCount"] as? Int ?? object["spineCount"] as? Int
    }

    @Test("two batch processes × 8 concurrent jobs write 16 whole analytics lines to one log")
    func concurrentAnalytics() async throws {
        var files: [String: [UInt8]] = [:]
        for i in 0..<8 { files["p\(i).jpg"] = try Self.photo(seed: 20 + i) }
        let first = try Self.folder(files), second = try Self.folder(files)
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("batch-log-\(UUID().uuidString).jsonl").path
        let runs = try [first, second].map { root in
            try cli.start(["batch", root, "--jobs", "8", "--quiet", "--analytics-log", log])
        }
        await CLITests.wait(runs)
        #expect(runs.allSatisfy { $0.terminationStatus == 0 })
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 16)
        #expect(lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil })
        #expect(lines.allSatisfy { $0.contains(#""command":"batch""#) })
    }
}
