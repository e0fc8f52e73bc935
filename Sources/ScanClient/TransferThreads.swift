import Dispatch
import Foundation
import NIOConcurrencyHelpers

/// Threads for blocking libcurl transfers, kept between transfers instead of one new OS thread per
/// request. A transfer is handed to an idle thread or starts a new one, so it never waits behind
/// another transfer; a thread that finds `maxIdle` others idle ends.
final class TransferThreads: Sendable {
    /// The process-wide pool.
    static let shared = TransferThreads(maxIdle: 8)

    /// One pool thread: it sleeps on its semaphore until `submit` gives it a job.
    private final class Worker: @unchecked Sendable {
        let wake = DispatchSemaphore(value: 0)
        // Written by `submit` before `wake.signal()`, read by the worker after `wake.wait()`.
        var job: (@Sendable () -> Void)?
    }

    private let idle = NIOLockedValueBox<[Worker]>([])
    private let maxIdle: Int

    init(maxIdle: Int) {
        self.maxIdle = maxIdle
    }

    /// Runs `body` on a pool thread and returns what it returns.
    func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        // As in BlockingThread: both sides pass one lock so ThreadSanitizer sees the hand-off.
        let handoff = NIOLock()
        let value = await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            submit {
                let value = body()
                handoff.withLock {}
                continuation.resume(returning: value)
            }
        }
        handoff.withLock {}
        return value
    }

    private func submit(_ job: @escaping @Sendable () -> Void) {
        if let worker = idle.withLockedValue({ $0.popLast() }) {
            worker.job = job
            worker.wake.signal()
            return
        }
        let worker = Worker()
        worker.job = job
        let thread = Thread { [self] in loop(worker) }
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func loop(_ worker: Worker) {
        while let job = worker.job {
            worker.job = nil
            job()
            let parked = idle.withLockedValue { workers in
                guard workers.count < maxIdle else { return false }
                workers.append(worker)
                return true
            }
            guard parked else { return }
            worker.wake.wait()
        }
    }
}
