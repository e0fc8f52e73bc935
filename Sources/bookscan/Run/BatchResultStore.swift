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

    /// SHA-256 of a file's bytes, hex; nil when it cannot be read.
    static func hash(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return SHA256.hash(data: data).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
