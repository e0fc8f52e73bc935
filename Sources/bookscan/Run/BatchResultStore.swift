import Crypto
import Foundation
import ScanClient
import ScanProtocol

/// One photo's result file: `<out>/<relative path>.json`, written atomically (temp + rename).
struct BatchResult: Codable {
    var image: String
    /// SHA-256 of the photo file when it was scanned; `--resume` rescans when it changed.
    var sourceSHA256: String
    var report: ScanReport
}

/// Where a batch keeps its results, and what `--resume` may skip.
struct BatchResultStore {
    let directory: String

    func path(for relative: String) -> String { directory + "/" + relative + ".json" }

    /// The stored result when it succeeded for exactly these bytes.
    func unchanged(_ relative: String, hash: String) -> BatchResult? {
        guard let data = FileManager.default.contents(atPath: path(for: relative)),
            let result = try? WireCoding.decode(BatchResult.self, from: data),
            result.sourceSHA256 == hash, result.report.outcome == .succeeded
        else { return nil }
        return result
    }

    func write(_ result: BatchResult) throws {
        let target = path(for: result.image)
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let encoder = WireCoding.encoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        try encoder.encode(result).write(to: URL(fileURLWithPath: target), options: .atomic)
    }

    /// Where the folder's book list lives: `<out>/books.csv`.
    var bookListPath: String { directory + "/books.csv" }

    /// Rebuilds `books.csv` from the stored results of `photos` (relative paths, in this order), so a
    /// `--resume` run that rescans only some photos still lists every book of the folder. Photos
    /// without a successful result contribute no rows. Written atomically; returns the book count.
    @discardableResult
    func writeBookList(for photos: [String]) throws -> Int {
        var rows: [[String]] = [BookList.csvHeader]
        for relative in photos {
            guard let data = FileManager.default.contents(atPath: path(for: relative)),
                let stored = try? WireCoding.decode(BatchResult.self, from: data), stored.report.outcome == .succeeded,
                let result = stored.report.result
            else { continue }
            rows += BookList.csvRows(image: relative, result: result)
        }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(BookList.csv(rows).utf8).write(to: URL(fileURLWithPath: bookListPath), options: .atomic)
        return rows.count - 1
    }

    /// SHA-256 of a file's bytes, hex; nil when it cannot be read.
    static func hash(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return SHA256.hash(data: data).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
