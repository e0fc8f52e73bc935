import BookscanBase
import BookscanTestSupport
import Foundation
import ImageKit
import Testing

/// The real `bookscan` binary, run as a user runs it: exit codes, output formats, the embedded service.
@Suite("bookscan command line")
struct CLITests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../SampleImages").standardized

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
        /// False when the process ended by a signal (a crash), not by exit().
        var exitedNormally = true
    }

    /// Analytics and memory of these runs go here, never into the user's state directory.
    /// Removed when the test process exits.
    static let stateDirectory: String = {
        atexit { try? FileManager.default.removeItem(atPath: CLITests.statePath) }
        return statePath
    }()
    private static var statePath: String {
        FileManager.default.temporaryDirectory.appendingPathComponent("bookscan-cli-state-\(getpid())").path
    }

    static var binary: URL {
        URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0]).deletingLastPathComponent().appendingPathComponent("bookscan")
    }

    /// Starts the binary without waiting (output discarded).
    func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["XDG_STATE_HOME"] = Self.stateDirectory
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Runs the binary to its end. The waiting and reading happen on threads of their own, never on
    /// the cooperative pool: a child talking to a service in this process must not starve it.
    /// `launcher` runs the binary through another program (e.g. `setpriv …`), which gets its path first.
    func bookscan(_ arguments: [String], environment: [String: String] = [:], launcher: [String] = []) async throws -> Run {
        let child = try ChildProcess.bookscan(arguments, environment: environment, launcher: launcher)
        let status = await child.exit()
        return Run(status: status, stdout: child.stdout, stderr: child.stderr, exitedNormally: child.process.terminationReason == .exit)
    }

    /// Waits for processes on a thread of its own.
    static func wait(_ processes: [Process]) async { await ChildProcess.wait(processes) }

    func temporary(_ bytes: [UInt8], _ name: String) throws -> String { try TemporaryFiles.write(bytes, name: name) }

    @Test("bad inputs: a one-line error naming the file and the problem, each with its own exit code")
    func badInputs() async throws {
        let png = try temporary([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 1, count: 32), "photo.jpg")
        let good = try JPEGEncoder.encode(PixelBuffer(width: 64, height: 64, fill: (10, 20, 30)), quality: 80)
        let truncated = try temporary(Array(good.prefix(good.count / 2)), "cut.jpg")
        let empty = try temporary([], "empty.jpg")
        let cases: [(String, Int32, String)] = [
            ("/nonexistent/shelf.jpg", 3, "no such file"),
            (FileManager.default.temporaryDirectory.path, 14, "directory"),
            (png, 5, "PNG"),
            (truncated, 16, "truncated"),
            (empty, 15, "empty"),
        ]
        for (path, status, words) in cases {
            let run = try await bookscan(["scan", path])
            #expect(run.status == status, "\(path): \(run.stderr)")
            let lines = run.stderr.split(separator: "\n").filter { $0.contains(path) }
            #expect(lines.count == 1, "\(run.stderr)")
            #expect(lines.first?.contains(words) == true, "\(run.stderr)")
        }
    }

    @Test("a batch of images goes on after a bad one and reports the failure in the exit code")
    func goesOn() async throws {
        let sample = Self.samples.appendingPathComponent("shelf_one_row.jpg").path
        let run = try await bookscan(["scan", "/nonexistent.jpg", sample, "--json", "--quiet"])
        #expect(run.status == 3)
        #expect(run.stdout.split(separator: "\n").count == 2)
        #expect(run.stdout.contains(#""outcome":"succeeded""#))
    }

    @Test("scan on the embedded service: JSON result, websocket strategy, annotated photo")
    func embeddedScan() async throws {
        let annotated = FileManager.default.temporaryDirectory.appendingPathComponent("annotated-\(getpid()).jpg").path
        let sample = Self.samples.appendingPathComponent("shelf_two_rows.jpg").path
        let run = try await bookscan(["scan", sample, "--json", "--annotate", annotated])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(report?["outcome"] as? String == "succeeded")
        #expect(report?["strategy"] as? String == "websocket")
        #expect((report?["spineCount"] as? Int ?? 0) > 40)
        #expect(run.stderr.contains("books in 2 rows"))
        let header = try JPEGDecoder.readHeader([UInt8](try Data(contentsOf: URL(fileURLWithPath: annotated))))
        #expect(header.width == 1600 && header.height == 1200)
    }

    @Test("a photo stored turned (EXIF 6) travels as stored, without its GPS, and is scanned and annotated upright")
    func storedTurned() async throws {
        let annotated = FileManager.default.temporaryDirectory.appendingPathComponent("annotated-turned-\(getpid()).jpg").path
        let sample = Self.samples.appendingPathComponent("shelf_rotated_exif_gps.jpg").path
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: sample)))
        let stored = try JPEGDecoder.readHeader(original)
        #expect(stored.width < stored.height)
        let run = try await bookscan(["scan", sample, "--json", "--annotate", annotated])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        // The upload is the original's compressed data minus its metadata, byte for byte.
        let copy = try #require(JPEGMetadataStripper.stripped(original, keeping: .right))
        #expect(report["bytesUp"] as? Int == copy.count)
        let result = try #require(report["result"] as? [String: Any])
        #expect(result["imageWidth"] as? Int == stored.height && result["imageHeight"] as? Int == stored.width)
        #expect(run.stderr.contains("in 2 rows"))
        let header = try JPEGDecoder.readHeader([UInt8](try Data(contentsOf: URL(fileURLWithPath: annotated))))
        #expect(header.width == stored.height && header.height == stored.width)
    }

    @Test("--events streams every accepted event as NDJSON; --strategy polling is classified polling")
    func eventsAndPolling() async throws {
        let sample = Self.samples.appendingPathComponent("shelf_one_row.jpg").path
        let run = try await bookscan(["scan", sample, "--events", "--quiet", "--strategy", "polling", "--poll-interval", "200ms"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let events = lines.compactMap { $0["event"] as? [String: Any] }
        let seqs = events.compactMap { $0["seq"] as? Int }
        #expect(!seqs.isEmpty)
        #expect(Set(seqs).count == seqs.count)
        #expect(events.filter { ["succeeded", "failed", "canceled"].contains($0["state"] as? String ?? "") }.count == 1)
        #expect(lines.allSatisfy { ["polling", "upload"].contains($0["path"] as? String ?? "") })
    }

    @Test("a bad command line exits 64 and --help documents the exit codes")
    func usage() async throws {
        #expect(try await bookscan(["scan"]).status == 64)
        #expect(try await bookscan(["scan", "x.jpg", "--strategy", "carrier-pigeon"]).status == 64)
        let help = try await bookscan(["scan", "--help"])
        #expect(help.stdout.contains("Exit codes"))
        #expect(help.stdout.contains("13  --strategy websocket"))
    }

    @Test("--version names the version, the commit (a development build says so) and both reading engines' versions")
    func version() async throws {
        let run = try await bookscan(["--version"])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "bookscan \(BookscanVersion.withCommit)", "\(lines)")
        #expect(BookscanVersion.commit == nil ? lines.first?.hasSuffix("(development build)") == true : lines.first?.contains("commit ") == true)
        #expect(lines.dropFirst().first?.contains("Tesseract 5.") == true && lines.dropFirst().first?.contains("PP-OCRv6") == true, "\(lines)")
    }

    @Test("every run appends one analytics record; stats summarises them; an empty log is friendly")
    func analyticsAndStats() async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("cli-analytics-\(UUID().uuidString).jsonl").path
        let empty = try await bookscan(["stats", "--log", log])
        #expect(empty.status == 0)
        #expect(empty.stdout.contains("No runs recorded"))
        let sample = Self.samples.appendingPathComponent("shelf_one_row.jpg").path
        let run = try await bookscan(["scan", sample, "/nonexistent.jpg", "--quiet", "--analytics-log", log, "--token", "sekrit-token-123"])
        #expect(run.status == 3)
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 2)
        #expect(!text.contains("sekrit-token-123"))
        let stats = try await bookscan(["stats", "--log", log, "--json"])
        let summary = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
        #expect(summary?["runs"] as? Int == 2)
        let human = try await bookscan(["stats", "--log", log, "--by", "network"])
        #expect(human.stdout.contains("WebSocket success"))
    }

    @Test("an unreachable server is exit 8")
    func unreachable() async throws {
        let sample = Self.samples.appendingPathComponent("shelf_one_row.jpg").path
        let run = try await bookscan(["scan", sample, "--server", "http://127.0.0.1:9", "--quiet"])
        #expect(run.status == 8, "\(run.stderr)")
    }
}
