import Foundation
import ImageKit
import ImagePreparation
import Testing

/// The committed bad-input corpus (Tests/CLITests/Corpus/bad-input) through `ImagePreparer` and
/// `InputFile`: every class is its own `PrepareError`, and a file that vanishes or is replaced while
/// being read is told apart from a truncated JPEG.
@Suite("Bad-input corpus: preparation")
struct BadInputCorpusPreparationTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../CLITests/Corpus/bad-input").standardized

    static let cases: [(String, PrepareError?)] = [
        ("good.jpg", nil),
        ("zero-bytes.jpg", .empty),
        ("truncated.jpg", .truncated("Premature end of JPEG file")),
        ("corrupt-markers.jpg", .corrupt("Corrupt JPEG data: premature end of data segment")),
        ("png-named.jpg", .unsupportedFormat(.png)),
        ("heic-named.jpg", .unsupportedFormat(.heic)),
        ("webp-named.jpg", .unsupportedFormat(.webp)),
        ("gif-named.jpg", .unsupportedFormat(.gif)),
        ("header-60000x60000.jpg", .tooLarge(width: 60000, height: 60000, limit: 250_000_000)),
        ("not-an-image.jpg", .notAnImage),
    ]

    func prepareError(_ path: String) -> PrepareError? {
        do {
            _ = try ImagePreparer().prepare(path: path)
            return nil
        } catch { return error }
    }

    @Test("each corpus file is its own PrepareError", arguments: cases.map(\.0))
    func corpusFile(_ file: String) throws {
        let expected = try #require(Self.cases.first { $0.0 == file }).1
        #expect(prepareError(Self.corpus.appendingPathComponent(file).path) == expected)
    }

    @Test("a missing path and a directory")
    func missingAndDirectory() {
        #expect(prepareError(Self.corpus.appendingPathComponent("no-such.jpg").path) == .notFound)
        #expect(prepareError(Self.corpus.path) == .isDirectory)
    }

    /// A FIFO at `name` whose writer sends `bytes`, then runs `then` (with the path), then closes.
    func fifo(_ name: String, sending bytes: [UInt8], then: @escaping @Sendable (String) -> Void) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("prep-fifo-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/" + name
        #expect(mkfifo(path, 0o644) == 0)
        Thread {
            let fd = open(path, O_WRONLY)
            guard fd >= 0 else { return }
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            then(path)
            close(fd)
        }.start()
        return path
    }

    var good: [UInt8] {
        get throws { [UInt8](try Data(contentsOf: Self.corpus.appendingPathComponent("good.jpg"))) }
    }

    @Test("a FIFO read to its end is a file like any other")
    func wholeFIFO() throws {
        let path = try fifo("whole.jpg", sending: try good) { _ in }
        #expect(try InputFile.read(path) == (try good))
    }

    @Test("half a file whose path is unlinked before EOF is 'vanished', not a truncated JPEG")
    func unlinkedMidRead() throws {
        let half = Array(try good.prefix(4000))
        let path = try fifo("gone.jpg", sending: half) { unlink($0) }
        #expect(prepareError(path) == .vanished("deleted while being read, after 4000 bytes"))
    }

    @Test("a path replaced by another file while being read is 'vanished'")
    func replacedMidRead() throws {
        let other = FileManager.default.temporaryDirectory.appendingPathComponent("prep-other-\(UUID().uuidString).jpg").path
        try Data(try good).write(to: URL(fileURLWithPath: other))
        let path = try fifo("replaced.jpg", sending: try good) { rename(other, $0) }
        let size = try good.count
        #expect(prepareError(path) == .vanished("replaced by another file while being read, after \(size) bytes"))
    }
}
