import Foundation
import NIOConcurrencyHelpers

/// Runs blocking work (a libcurl transfer, a socket read) on a thread of its own, never on the
/// cooperative pool, and hands its result to the awaiting task.
package enum BlockingThread {
    /// Runs `body` on a new thread and returns what it returns.
    ///
    /// The result travels through the continuation, and both sides also pass through one lock:
    /// ThreadSanitizer on Linux does not see a continuation resumed from a plain thread as a
    /// synchronisation, and reported every array the thread had built as a data race with the task
    /// that read it (reproduced without project code; RELIABILITY.md, Sanitizers). The lock is
    /// uncontended and costs nothing measurable next to a thread start.
    package static func run<T: Sendable>(stackSize: Int = 1 << 20, _ body: @escaping @Sendable () -> T) async -> T {
        let handoff = NIOLock()
        let value = await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            let thread = Thread {
                let value = body()
                handoff.withLock {}
                continuation.resume(returning: value)
            }
            thread.stackSize = stackSize
            thread.start()
        }
        handoff.withLock {}
        return value
    }
}
