import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An advisory lock on a lock file, held for the duration of `body` (across processes): exclusive
/// for writers, shared for readers (many readers at once, never while a writer appends or rotates).
enum FileLock {
    /// A reader (`shared`) never creates the lock file: without one no writer ever wrote there, so it reads unlocked.
    static func withLock<T>(_ lockPath: String, shared: Bool = false, _ body: () throws -> T) throws -> T {
        let fd = shared ? open(lockPath, O_RDONLY | O_CLOEXEC) : open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        if fd < 0, shared, errno == ENOENT { return try body() }
        guard fd >= 0 else { throw AnalyticsError.cannotLock(lockPath, errno) }
        defer { close(fd) }
        while flock(fd, shared ? LOCK_SH : LOCK_EX) != 0 {
            guard errno == EINTR else { throw AnalyticsError.cannotLock(lockPath, errno) }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
