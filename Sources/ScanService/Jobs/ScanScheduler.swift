import DequeModule
import NIOConcurrencyHelpers

/// A bounded FIFO of jobs waiting for a worker. Workers wait in `next()`; `enqueue` refuses a job
/// when `capacity` jobs are already waiting and no worker is free.
final class ScanScheduler: Sendable {
    private struct State {
        var pending: Deque<ScanJob> = []
        var waiters: Deque<CheckedContinuation<ScanJob?, Never>> = []
        var closed = false
    }

    private let state = NIOLockedValueBox(State())
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Hands the job to a waiting worker or queues it; false when the queue is full or closed.
    func enqueue(_ job: ScanJob) -> Bool {
        let waiter: CheckedContinuation<ScanJob?, Never>?? = state.withLockedValue { s in
            guard !s.closed else { return .some(nil) }
            if let waiter = s.waiters.popFirst() { return waiter }
            guard s.pending.count < capacity else { return .some(nil) }
            s.pending.append(job)
            return .none
        }
        switch waiter {
        case .none: return true
        case .some(.none): return false
        case .some(.some(let continuation)):
            continuation.resume(returning: job)
            return true
        }
    }

    /// The next job, waiting for one; nil once the scheduler is closed.
    func next() async -> ScanJob? {
        await withCheckedContinuation { (continuation: CheckedContinuation<ScanJob?, Never>) in
            let ready: ScanJob?? = state.withLockedValue { s in
                if let job = s.pending.popFirst() { return .some(job) }
                if s.closed { return .some(nil) }
                s.waiters.append(continuation)
                return .none
            }
            if case .some(let job) = ready { continuation.resume(returning: job) }
        }
    }

    /// Removes a job that was canceled while it waited.
    func remove(_ job: ScanJob) {
        state.withLockedValue { s in
            if let index = s.pending.firstIndex(where: { $0 === job }) { s.pending.remove(at: index) }
        }
    }

    /// Wakes every waiting worker with nil and refuses new jobs.
    func close() {
        let waiters = state.withLockedValue { s in
            s.closed = true
            let waiters = s.waiters
            s.waiters.removeAll()
            return waiters
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }
}
