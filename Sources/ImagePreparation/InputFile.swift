import Foundation

/// Reads an input file whole with open/read/fstat and tells apart every way that can go wrong: a
/// missing path, a directory, no permission, an I/O error, and a file deleted, replaced or changed
/// while it was being read (so half a file that vanished is never mistaken for a truncated JPEG).
/// FIFOs and `/dev/fd/N` (shell process substitution) are read like files.
package enum InputFile {
    /// Nothing bigger is read: no photo is this large, and `/dev/zero` must not fill memory.
    package static let maxBytes = 1 << 30

    package static func read(_ path: String, maxBytes: Int = InputFile.maxBytes) throws(PrepareError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw openError(errno) }
        defer { close(fd) }
        var before = stat()
        guard fstat(fd, &before) == 0 else { throw .unreadable(reason(errno)) }
        if before.st_mode & S_IFMT == S_IFDIR { throw .isDirectory }
        let regular = before.st_mode & S_IFMT == S_IFREG
        var bytes: [UInt8] = []
        if regular { bytes.reserveCapacity(min(max(0, Int(before.st_size)), maxBytes)) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable("read failed after \(bytes.count) bytes: \(reason(errno))")
            }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > maxBytes { throw .unreadable("it is over \(maxBytes) bytes, larger than any photo") }
        }
        try checkUnchanged(fd: fd, path: path, before: before, regular: regular, count: bytes.count)
        return bytes
    }

    /// After EOF: the path must still name the file that was opened, that file must still be linked,
    /// and a regular file must still have the size and modification time it had when it was opened.
    private static func checkUnchanged(fd: Int32, path: String, before: stat, regular: Bool, count: Int) throws(PrepareError) {
        var now = stat()
        if stat(path, &now) != 0 {
            if errno == ENOENT { throw .vanished("deleted while being read, after \(count) bytes") }
        } else if now.st_dev != before.st_dev || now.st_ino != before.st_ino {
            throw .vanished("replaced by another file while being read, after \(count) bytes")
        }
        var after = stat()
        guard fstat(fd, &after) == 0 else { return }
        if after.st_nlink == 0 { throw .vanished("deleted while being read, after \(count) bytes") }
        if regular, after.st_size != before.st_size || after.st_mtim.tv_sec != before.st_mtim.tv_sec
            || after.st_mtim.tv_nsec != before.st_mtim.tv_nsec
        {
            throw .vanished("changed while being read: \(count) bytes read, now \(after.st_size) bytes")
        }
    }

    private static func openError(_ code: Int32) -> PrepareError {
        switch code {
        case ENOENT, ENOTDIR: .notFound
        case EISDIR: .isDirectory
        case EACCES, EPERM: .unreadable("permission denied")
        case ENXIO: .unreadable("not a file one can read (a socket or a device without a reader)")
        default: .unreadable(reason(code))
        }
    }

    private static func reason(_ code: Int32) -> String { String(cString: strerror(code)) }
}
