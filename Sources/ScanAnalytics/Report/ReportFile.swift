import Foundation

/// Writes a report file atomically: a temporary file beside it, flushed, then renamed over it, so a
/// reader never sees half a page and a failed write leaves any earlier file as it was.
package enum ReportFile {
    /// Why a report file could not be written: the path and the system's reason, in one line.
    package struct WriteError: Error, Sendable, CustomStringConvertible {
        package var path: String
        package var reason: String

        package var description: String { "\(path): \(reason)" }
    }

    /// Writes `text` (UTF-8) to `path`, replacing what was there.
    package static func write(_ text: String, to path: String) throws(WriteError) {
        try write(bytes: Array(text.utf8), to: path)
    }

    /// Writes `bytes` to `path`, replacing what was there: the temporary file fsynced, renamed over `path`, then
    /// the folder fsynced so that the rename itself survives a crash.
    package static func write(bytes: [UInt8], to path: String) throws(WriteError) {
        guard !path.isEmpty else { throw WriteError(path: path, reason: "an empty file name") }
        guard !path.hasSuffix("/") else { throw WriteError(path: path, reason: String(cString: strerror(EISDIR))) }
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temporary = (directory.isEmpty ? "" : directory + "/") + ".\(name).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw WriteError(path: path, reason: String(cString: strerror(errno))) }
        var failure = writeAll(descriptor, bytes)
        if failure == nil, fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == nil { failure = errno }
        if failure == nil, rename(temporary, path) != 0 { failure = errno }
        if let failure {
            unlink(temporary)
            throw WriteError(path: path, reason: String(cString: strerror(failure)))
        }
        syncFolder(of: path)
    }

    /// fsyncs the folder `path` is in (its entries: a rename or a new file), as far as the system lets it.
    package static func syncFolder(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let folder = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return }
        fsync(folder)
        close(folder)
    }
}

/// Writes every byte to `descriptor` (retrying short writes and EINTR); the errno of a failure, else nil.
private func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Int32? {
    bytes.withUnsafeBytes { buffer -> Int32? in
        guard let base = buffer.baseAddress else { return nil }
        var offset = 0
        while offset < buffer.count {
            let written = write(descriptor, base + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }
}
