import Foundation
import NIOConcurrencyHelpers
import ScanProtocol

/// Outcome of submitting an upload under a client-chosen job id.
enum Admission: Sendable {
    /// A new job was created and queued.
    case created(ScanJob)
    /// The same id with the same bytes: the existing job, untouched (no second scan).
    case existing(ScanJob)
    /// The same id with different bytes.
    case conflict
    /// The queue is full; try again later.
    case queueFull
}

/// All jobs the service knows, by id; finished jobs are forgotten one TTL after they end.
final class JobRegistry: Sendable {
    private let jobs = NIOLockedValueBox<[UUID: ScanJob]>([:])
    private let ttl: Duration
    private let scheduler: ScanScheduler

    init(ttl: Duration, scheduler: ScanScheduler) {
        self.ttl = ttl
        self.scheduler = scheduler
    }

    /// Creates and enqueues a job, or explains why not, in one atomic step per id.
    func admit(id: UUID, image: [UInt8], digest: [UInt8], now: Date) -> Admission {
        jobs.withLockedValue { jobs in
            if let existing = jobs[id], !isExpired(existing, now: now) {
                return existing.digest == digest ? .existing(existing) : .conflict
            }
            let job = ScanJob(id: id, image: image, digest: digest, now: now)
            guard scheduler.enqueue(job) else { return .queueFull }
            jobs[id] = job
            return .created(job)
        }
    }

    /// The job with this id, unless unknown or expired.
    func job(_ id: UUID, now: Date = Date()) -> ScanJob? {
        jobs.withLockedValue { jobs in
            guard let job = jobs[id] else { return nil }
            if isExpired(job, now: now) {
                jobs.removeValue(forKey: id)
                return nil
            }
            return job
        }
    }

    /// Drops every expired job; returns how many.
    @discardableResult
    func sweep(now: Date = Date()) -> Int {
        jobs.withLockedValue { jobs in
            let expired = jobs.values.filter { isExpired($0, now: now) }.map(\.id)
            for id in expired { jobs.removeValue(forKey: id) }
            return expired.count
        }
    }

    /// Number of jobs currently held.
    var count: Int { jobs.withLockedValue { $0.count } }

    /// Jobs per state, for `/healthz`.
    func countByState() -> [JobState: Int] {
        let all = jobs.withLockedValue { Array($0.values) }
        var counts: [JobState: Int] = [:]
        for job in all { counts[job.jobState, default: 0] += 1 }
        return counts
    }

    private func isExpired(_ job: ScanJob, now: Date) -> Bool {
        guard let finished = job.finishedAt else { return false }
        return now.timeIntervalSince(finished) >= ttl.inSeconds
    }
}
