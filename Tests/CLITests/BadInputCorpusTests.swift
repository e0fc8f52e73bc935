import Foundation
import Testing

/// The committed bad-input corpus (Tests/CLITests/Corpus/bad-input) and the cases only a running
/// test can make, through the real binary: each class has its own exit code and one stderr line
/// naming the file and the problem; nothing on stdout claims success; the process never dies by a signal.
@Suite("bad-input corpus")
struct BadInputCorpusTests {
    let cli = CLITests()
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus/bad-input").standardized

    /// One corpus file and what `bookscan scan` must say about it (the table in the corpus README).
    struct Case: Sendable, CustomTestStringConvertible {
        var file: String
        var status: Int32
        var words: String
        var testDescription: String { file }
    }

    static let cases: [Case] = [
        Case(file: "zero-bytes.jpg", status: 15, words: "is empty (0 bytes)"),
        Case(file: "truncated.jpg", status: 16, words: "is truncated: the file ends before the JPEG does"),
        Case(file: "corrupt-markers.jpg", status: 6, words: "is a corrupt JPEG"),
        Case(file: "png-named.jpg", status: 5, words: "is a PNG image"),
        Case(file: "heic-named.jpg", status: 5, words: "is a HEIC image"),
        Case(file: "webp-named.jpg", status: 5, words: "is a WebP image"),
        Case(file: "gif-named.jpg", status: 5, words: "is a GIF image"),
        Case(file: "header-60000x60000.jpg", status: 17, words: "is 60000×60000 pixels, over the limit"),
        Case(file: "not-an-image.jpg", status: 18, words: "is not an image"),
    ]

    static func path(_ file: String) -> String { corpus.appendingPathComponent(file).path }

    /// The checks every bad input must pass.
    func expectBadInput(_ run: CLITests.Run, path: String, status: Int32, words: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.exitedNormally, "killed by a signal: \(run.stderr)", sourceLocation: sourceLocation)
        #expect(run.status == status, "\(path): \(run.stderr)", sourceLocation: sourceLocation)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one line, got: \(run.stderr)", sourceLocation: sourceLocation)
        #expect(lines.first?.hasPrefix("bookscan: \(path): ") == true, "\(run.stderr)", sourceLocation: sourceLocation)
        #expect(lines.first?.contains(words) == true, "\(run.stderr)", sourceLocation: sourceLocation)
        // --json prints the report: it must say input_error, never success.
        let report = try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        #expect(report?["outcome"] as? String == "input_error", "\(run.stdout)", sourceLocation: sourceLocation)
        #expect(!run.stdout.contains("succeeded") && !run.stdout.contains("books in"), sourceLocation: sourceLocation)
    }

    @Test("each corpus file: its own exit code, one line naming the file and the problem, no success on stdout", arguments: cases)
    func corpusFile(_ item: Case) async throws {
        let path = Self.path(item.file)
        let run = try await cli.bookscan(["scan", path, "--json", "--quiet", "--no-analytics"])
        expectBadInput(run, path: path, status: item.status, words: item.words)
    }

    @Test("the corpus control photo scans (so the corpus files fail for their damage, not for the picture)")
    func control() async throws {
        let run = try await cli.bookscan(["scan", Self.path("good.jpg"), "--json", "--no-analytics"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""outcome":"succeeded""#))
    }

    @Test("a missing path is 3 and a directory is 14, each with its own line")
    func missingAndDirectory() async throws {
        let missing = Self.corpus.appendingPathComponent("no-such-photo.jpg").path
        let gone = try await cli.bookscan(["scan", missing, "--json", "--quiet", "--no-analytics"])
        expectBadInput(gone, path: missing, status: 3, words: "no such file")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bad-input-dir-\(UUID().uuidString).jpg").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        expectBadInput(
            try await cli.bookscan(["scan", directory, "--json", "--quiet", "--no-analytics"]), path: directory, status: 14, words: "is a directory")
    }

    /// How to run bookscan so that file permissions bind it: as is for a normal user; as root,
    /// through setpriv with every capability dropped (no CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH).
    static var unprivileged: [String]? {
        guard getuid() == 0 else { return [] }
        let setpriv = "/usr/bin/setpriv"
        guard FileManager.default.isExecutableFile(atPath: setpriv) else { return nil }
        return [setpriv, "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all"]
    }

    @Test("a file without read permission is 4, also when the tests run as root")
    func noPermission() async throws {
        let launcher = try #require(Self.unprivileged, "running as root needs /usr/bin/setpriv (util-linux) to drop CAP_DAC_OVERRIDE")
        let path = try cli.temporary([UInt8](try Data(contentsOf: Self.corpus.appendingPathComponent("good.jpg"))), "locked-\(UUID().uuidString).jpg")
        chmod(path, 0)
        defer { chmod(path, 0o644) }
        let run = try await cli.bookscan(["scan", path, "--json", "--quiet", "--no-analytics"], launcher: launcher)
        expectBadInput(run, path: path, status: 4, words: "cannot be read (permission denied)")
    }

    @Test("a file that vanishes mid-read (a FIFO whose writer sends half, unlinks the path, closes) is 19, not 'truncated'")
    func vanishesMidRead() async throws {
        let good = [UInt8](try Data(contentsOf: Self.corpus.appendingPathComponent("good.jpg")))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bad-input-fifo-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/vanishing.jpg"
        #expect(mkfifo(path, 0o644) == 0)
        let half = Array(good.prefix(good.count / 2))
        let writer = Thread {
            // Blocks until bookscan opens the FIFO for reading.
            let fd = open(path, O_WRONLY)
            guard fd >= 0 else { return }
            _ = half.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            unlink(path)
            close(fd)
        }
        writer.start()
        let run = try await cli.bookscan(["scan", path, "--json", "--quiet", "--no-analytics"])
        if FileManager.default.fileExists(atPath: path) {
            // bookscan never opened it: release the writer, and fail below.
            let fd = open(path, O_RDONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
        }
        expectBadInput(run, path: path, status: 19, words: "vanished (deleted while being read, after \(half.count) bytes)")
        #expect(!run.stderr.contains("truncated"))
    }

    @Test("a FIFO from process substitution, bookscan scan <(cat photo.jpg), is read like a file")
    func processSubstitution() async throws {
        // bash -c SCRIPT BINARY PHOTO: $0 is the binary, $1 the photo.
        let run = try await cli.bookscan(
            [Self.path("good.jpg")], launcher: ["/bin/bash", "-c", #"exec "$0" scan <(cat "$1") --json --no-analytics"#])
        #expect(run.exitedNormally)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""outcome":"succeeded""#))
    }
}
