import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An exclusive advisory lock on a lock file, held for the duration of `body` (across processes).
enum FileLock {
    static func withLock<T>(_ lockPath: String, _ body: () throws -> T) throws -> T {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw AnalyticsError.cannotLock(lockPath, errno) }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw AnalyticsError.cannotLock(lockPath, errno) }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}
