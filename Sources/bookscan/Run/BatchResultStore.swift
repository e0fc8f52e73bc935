import Crypto
import Foundation
import ScanClient
import ScanProtocol

/// One photo's result file: `<out>/<relative path>.json`, written atomically and durably (`ConfinedFolder.write`).
struct BatchResult: Codable {
    var image: String
    /// SHA-256 of the photo file when it was scanned; `--resume` rescans when it changed.
    var sourceSHA256: String
    var report: ScanReport
}

/// Where a batch keeps its results, and what `--resume` may skip. Every file goes through a
/// `ConfinedFolder`: the results folder must not be a symbolic link, nothing below it is followed, and
/// each write is a fsynced temporary file renamed into place (then the folder fsynced).
struct BatchResultStore: Sendable {
    let directory: String

    /// The largest result file read back: the largest response the client reads, with room for the
    /// pretty-printed report around it.
    static let maxResultFileBytes = 4 * CurlHTTPClient.Configuration.defaultMaxResponseBytes

    private var folder: ConfinedFolder { ConfinedFolder(path: directory) }

    func path(for relative: String) -> String { directory + "/" + relative + ".json" }

    /// Creates the results folder when missing; fails (one line) when it is a symbolic link or not a folder.
    func prepare() throws(ConfinedFolder.Failure) { try folder.prepare() }

    /// What the stored result of the photo at `relative` is worth (see `StoredResult`); `hash` is the
    /// photo's SHA-256 now, nil to skip that check.
    func stored(_ relative: String, hash: String?) -> StoredResult {
        let file: ConfinedFolder.ReadFile
        do throws(ConfinedFolder.Failure) {
            guard let read = try folder.read(relative + ".json", maxBytes: Self.maxResultFileBytes) else { return .absent }
            file = read
        } catch {
            return .untrusted(.unreadable(error.reason))
        }
        return StoredResult.judge(file, relative: relative, hash: hash)
    }

    func write(_ result: BatchResult) throws(ConfinedFolder.Failure) {
        let encoder = WireCoding.encoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        let bytes: Data
        do { bytes = try encoder.encode(result) } catch { throw .init(path: path(for: result.image), reason: .system(EINVAL)) }
        try folder.write(Array(bytes), to: result.image + ".json")
    }

    /// The name of the folder's book list in the results folder.
    static let bookListName = "books.csv"

    /// Where the folder's book list lives: `<out>/books.csv`.
    var bookListPath: String { directory + "/" + Self.bookListName }

    /// Rebuilds `books.csv` from the stored results of `photos` (relative paths, in this order), so a
    /// `--resume` run that rescans only some photos still lists every book of the folder. Photos
    /// without a trusted successful result contribute no rows. Written atomically; returns the book count.
    @discardableResult
    func writeBookList(for photos: [String]) throws(ConfinedFolder.Failure) -> Int {
        var rows: [[String]] = [BookList.csvHeader]
        for relative in photos {
            guard case .trusted(let stored) = stored(relative, hash: nil), let result = stored.report.result else { continue }
            rows += BookList.csvRows(image: relative, result: result)
        }
        try folder.write(Array(BookList.csv(rows).utf8), to: Self.bookListName)
        return rows.count - 1
    }

    /// SHA-256 of a file's bytes, hex; nil when it cannot be read.
    static func hash(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return SHA256.hash(data: data).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
