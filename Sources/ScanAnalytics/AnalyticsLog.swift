import Foundation
import ScanProtocol

/// The append-only JSONL analytics log. Each record is one `write(2)` of one line to a file opened
/// with O_APPEND, under an exclusive `flock`, so concurrent jobs and processes never tear, merge or
/// lose lines. At `rotateBytes` the file is rotated under the same lock: `<name>.1` becomes `<name>.2`
/// and so on, the live file becomes `<name>.1`, and only `keep` previous files are kept (`--analytics-keep`,
/// config `analytics_keep`; 0 keeps none). Readers take the same lock shared, so they never read a
/// rotation half done, and skip corrupt or partial lines and count them.
package struct AnalyticsLog: Sendable {
    package let path: String
    package let rotateBytes: Int
    /// Previous (rotated) files kept next to the live one.
    package let keep: Int

    /// Rotated files kept unless told otherwise: with the default size, about 40 MB of history.
    package static let defaultKeep = 4
    /// The most rotated files a user may ask to keep.
    package static let maximumKeep = 1000
    /// Size at which the live file is rotated unless told otherwise.
    package static let defaultRotateBytes = 8 * 1024 * 1024

    package init(path: String, rotateBytes: Int = defaultRotateBytes, keep: Int = defaultKeep) {
        self.path = path
        self.rotateBytes = rotateBytes
        self.keep = min(max(0, keep), Self.maximumKeep)
    }

    /// The `n`th previous file (`<name>.n`).
    package func rotated(_ n: Int) -> String { "\(path).\(n)" }

    /// `--analytics-log`, else `BOOKSCAN_ANALYTICS_LOG`, else `$XDG_STATE_HOME/bookscan/analytics.jsonl`.
    package static func defaultPath(override: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let override, !override.isEmpty { return override }
        if let path = environment["BOOKSCAN_ANALYTICS_LOG"], !path.isEmpty { return path }
        return StateDirectory.path(environment: environment) + "/analytics.jsonl"
    }

    /// Appends one record as one line, fsynced.
    package func append(_ record: AnalyticsRecord) throws {
        var line = try WireCoding.encode(record)
        line.append(0x0A)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileLock.withLock(path + ".lock") {
            if let size = try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size + line.count > rotateBytes, size > 0 {
                try rotate()
            }
            let created = !FileManager.default.fileExists(atPath: path)
            let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw AnalyticsError.cannotOpen(path, errno) }
            defer { close(fd) }
            let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written == line.count else { throw AnalyticsError.shortWrite(path) }
            // The record lasts a crash once appended (and a new file's entry in its folder).
            guard fsync(fd) == 0 else { throw AnalyticsError.shortWrite(path) }
            if created { ReportFile.syncFolder(of: path) }
        }
    }

    /// Shifts `<name>.k` to `<name>.k+1` (dropping what falls beyond `keep`) and the live file to `<name>.1`.
    /// Called with the lock held.
    private func rotate() throws {
        let files = FileManager.default
        _ = try? files.removeItem(atPath: rotated(keep == 0 ? 1 : keep))
        if keep > 1 {
            for n in stride(from: keep - 1, through: 1, by: -1) where files.fileExists(atPath: rotated(n)) {
                try files.moveItem(atPath: rotated(n), toPath: rotated(n + 1))
            }
        }
        if keep == 0 {
            try files.removeItem(atPath: path)
        } else {
            try files.moveItem(atPath: path, toPath: rotated(1))
        }
        // Files beyond `keep` left by an earlier, larger setting.
        var extra = keep + 1
        while files.fileExists(atPath: rotated(extra)) {
            _ = try? files.removeItem(atPath: rotated(extra))
            extra += 1
        }
    }

    /// Every readable record, oldest first (the oldest rotated file first), plus the number of lines
    /// skipped. Reads under the shared lock, so an append or a rotation is never seen half done.
    package func read(includeRotated: Bool = true) -> (records: [AnalyticsRecord], skipped: Int) {
        let locked = try? FileLock.withLock(path + ".lock", shared: true) { readUnlocked(includeRotated: includeRotated) }
        // No lock file can be made (a read-only directory): read anyway, nothing can be writing there.
        return locked ?? readUnlocked(includeRotated: includeRotated)
    }

    private func readUnlocked(includeRotated: Bool) -> (records: [AnalyticsRecord], skipped: Int) {
        var records: [AnalyticsRecord] = []
        var skipped = 0
        let decoder = WireCoding.decoder()
        var previous: [String] = []
        if includeRotated {
            var n = 1
            while FileManager.default.fileExists(atPath: rotated(n)) {
                previous.append(rotated(n))
                n += 1
            }
        }
        for file in previous.reversed() + [path] {
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
