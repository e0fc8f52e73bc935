import Foundation
import ScanProtocol

/// The append-only JSONL analytics log. Each record is one `write(2)` of one line to a file opened
/// with O_APPEND, under an exclusive `flock`, so concurrent jobs and processes never tear, merge or
/// lose lines. At `rotateBytes` the file is renamed to `<name>.1` (one previous file kept) under the
/// same lock. Readers skip corrupt or partial lines and count them.
public struct AnalyticsLog: Sendable {
    public let path: String
    public let rotateBytes: Int

    public init(path: String, rotateBytes: Int = 8 * 1024 * 1024) {
        self.path = path
        self.rotateBytes = rotateBytes
    }

    /// `--analytics-log`, else `BOOKSCAN_ANALYTICS_LOG`, else `$XDG_STATE_HOME/bookscan/analytics.jsonl`.
    public static func defaultPath(override: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let override, !override.isEmpty { return override }
        if let path = environment["BOOKSCAN_ANALYTICS_LOG"], !path.isEmpty { return path }
        return StateDirectory.path(environment: environment) + "/analytics.jsonl"
    }

    /// Appends one record as one line.
    public func append(_ record: AnalyticsRecord) throws {
        var line = try WireCoding.encode(record)
        line.append(0x0A)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileLock.withLock(path + ".lock") {
            if let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size + line.count > rotateBytes, size > 0 {
                let previous = path + ".1"
                _ = try? FileManager.default.removeItem(atPath: previous)
                try FileManager.default.moveItem(atPath: path, toPath: previous)
            }
            let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw AnalyticsError.cannotOpen(path, errno) }
            defer { close(fd) }
            let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written == line.count else { throw AnalyticsError.shortWrite(path) }
        }
    }

    /// Every readable record, oldest first (the rotated file first), plus the number of lines skipped.
    public func read(includeRotated: Bool = true) -> (records: [AnalyticsRecord], skipped: Int) {
        var records: [AnalyticsRecord] = []
        var skipped = 0
        let decoder = WireCoding.decoder()
        for file in (includeRotated ? [path + ".1", path] : [path]) {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            for line in data.split(separator: 0x0A, omittingEmptySubsequences: true) {
                if let record = try? decoder.decode(AnalyticsRecord.self, from: Data(line)) {
                    records.append(record)
                } else {
                    skipped += 1
                }
            }
        }
        return (records, skipped)
    }
}
