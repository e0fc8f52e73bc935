import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A folder whose files are reached without following a symbolic link: the folder itself must not be
/// one (its parents may), nor any folder or file below it (every step is an `openat` with
/// `O_NOFOLLOW`), so a link planted in it can neither send a write elsewhere nor pass a file from
/// elsewhere off as its own. A write is atomic and durable: a new temporary file beside the target,
/// written and fsynced, renamed over it (a link there is replaced, never followed), then the folder
/// fsynced so the rename itself survives a crash.
struct ConfinedFolder: Sendable {
    /// The folder's path as given (its last component must be a real folder).
    let path: String

    /// Why a file of the folder could not be reached, read or written: the path and the reason, one line.
    struct Failure: Error, CustomStringConvertible, LocalizedError {
        /// What went wrong.
        enum Reason: Equatable, Sendable {
            case symbolicLink
            case notAFolder
            case notARegularFile
            /// The file is larger than the reader accepts (its size in bytes).
            case tooLarge(Int64)
            /// A relative path with an empty, `.` or `..` component.
            case badName
            case system(Int32)
        }

        var path: String
        var reason: Reason

        var description: String {
            switch reason {
            case .symbolicLink: "\(path) is a symbolic link; bookscan follows none where it writes results"
            case .notAFolder: "\(path) is not a folder"
            case .notARegularFile: "\(path) is not a regular file"
            case .tooLarge(let size): "\(path) is too large (\(size) bytes)"
            case .badName: "\(path): not a plain relative path"
            case .system(let code): "\(path): \(String(cString: strerror(code)))"
            }
        }

        var errorDescription: String? { description }
    }

    /// A file read from the folder: its bytes and its status (owner, mode, links).
    struct ReadFile {
        var bytes: [UInt8]
        var status: stat
    }

    /// Creates the folder (and its parents) when missing; fails when it is a symbolic link or not a folder.
    func prepare() throws(Failure) {
        close(try openFolder(create: true))
    }

    /// Writes `bytes` to `relative` (subfolders created as needed), replacing what was there.
    func write(_ bytes: [UInt8], to relative: String) throws(Failure) {
        let (folder, name) = try openParent(of: relative, create: true)
        defer { close(folder) }
        let target = path + "/" + relative
        let temporary = ".\(name).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = openat(folder, temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Failure(path: target, reason: .system(errno)) }
        // The mode does not depend on the umask: `--resume` trusts no result that others may write.
        var failure: Int32? = fchmod(descriptor, 0o644) == 0 ? nil : errno
        if failure == nil { failure = Self.writeAll(descriptor, bytes) }
        if failure == nil, fsync(descriptor) != 0 { failure = errno }
        if close(descriptor) != 0, failure == nil { failure = errno }
        if failure == nil, renameat(folder, temporary, folder, name) != 0 { failure = errno }
        if let failure {
            unlinkat(folder, temporary, 0)
            throw Failure(path: target, reason: failure == EISDIR ? .notARegularFile : .system(failure))
        }
        if fsync(folder) != 0 { throw Failure(path: (target as NSString).deletingLastPathComponent, reason: .system(errno)) }
    }

    /// The regular file at `relative` when it is at most `maxBytes`; nil when there is none.
    func read(_ relative: String, maxBytes: Int) throws(Failure) -> ReadFile? {
        let target = path + "/" + relative
        let opened: (folder: Int32, name: String)
        do throws(Failure) { opened = try openParent(of: relative, create: false) } catch {
            if error.reason == .system(ENOENT) { return nil }  // no such folder on the way
            throw error
        }
        let (folder, name) = opened
        defer { close(folder) }
        // O_NONBLOCK: a FIFO planted here must not block the open.
        let descriptor = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw Failure(path: target, reason: Self.reason(code, at: folder, name))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Failure(path: target, reason: .system(errno)) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw Failure(path: target, reason: .notARegularFile) }
        guard status.st_size <= maxBytes else { throw Failure(path: target, reason: .tooLarge(Int64(status.st_size))) }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw Failure(path: target, reason: .system(errno)) }
            if n == 0 { break }  // it shrank meanwhile
            offset += n
        }
        return ReadFile(bytes: Array(bytes.prefix(offset)), status: status)
    }

    // MARK: walking without links

    /// The folder itself, opened without following a link at its last component.
    private func openFolder(create: Bool) throws(Failure) -> Int32 {
        var descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if descriptor < 0, errno == ENOENT, create {
            // Every missing folder on the way, like `mkdir -p` (links among the parents are followed).
            var reached = path.hasPrefix("/") ? "" : "."
            for component in path.split(separator: "/") {
                reached += "/" + component
                if mkdir(reached, 0o755) != 0, errno != EEXIST { throw Failure(path: reached, reason: .system(errno)) }
            }
            descriptor = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        guard descriptor >= 0 else { throw Failure(path: path, reason: Self.reason(errno, at: AT_FDCWD, path)) }
        return descriptor
    }

    /// The folder holding `relative` (opened) and the file's own name; subfolders made when `create`.
    private func openParent(of relative: String, create: Bool) throws(Failure) -> (Int32, String) {
        let components = relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let name = components.last, components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
            throw Failure(path: relative, reason: .badName)
        }
        var folder = try openFolder(create: create)
        var reached = path
        for component in components.dropLast() {
            reached += "/" + component
            if create {
                if mkdirat(folder, component, 0o755) == 0 {
                    fsync(folder)  // the new folder's entry lasts like the files put in it
                } else if errno != EEXIST {
                    let code = errno
                    close(folder)
                    throw Failure(path: reached, reason: .system(code))
                }
            }
            let next = openat(folder, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let code = errno
            let reason = next < 0 ? Self.reason(code, at: folder, component) : nil
            close(folder)
            if let reason { throw Failure(path: reached, reason: reason) }
            folder = next
        }
        return (folder, name)
    }

    /// What a failed `open` with `O_NOFOLLOW` meant: a link there, something else than expected, or `code` itself.
    private static func reason(_ code: Int32, at folder: Int32, _ name: String) -> Failure.Reason {
        var status = stat()
        if fstatat(folder, name, &status, AT_SYMLINK_NOFOLLOW) == 0 {
            if status.st_mode & S_IFMT == S_IFLNK { return .symbolicLink }
            if code == ENOTDIR { return .notAFolder }
        }
        return .system(code)
    }

    /// Writes every byte to `descriptor` (retrying short writes and EINTR); the errno of a failure, else nil.
    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Int32? {
        bytes.withUnsafeBytes { buffer -> Int32? in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, base + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
    }
}
