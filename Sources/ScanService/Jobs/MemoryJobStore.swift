import BookscanBase
import Foundation
import NIOConcurrencyHelpers
import ScanProtocol

/// The job store of one process: jobs in memory by id, a bounded FIFO for the workers; finished
/// jobs are forgotten one TTL after they end. The embedded service and a plain `serve` use it.
final class MemoryJobStore: JobStore {
    private let jobs = NIOLockedValueBox<[UUID: ScanJob]>([:])
    private let ttl: Duration
    private let scheduler: ScanScheduler

    init(ttl: Duration, queueCapacity: Int) {
        self.ttl = ttl
        self.scheduler = ScanScheduler(capacity: queueCapacity)
    }

    var queueCapacity: Int { scheduler.capacity }

    func lookup(_ id: UUID, digest: [UInt8], now: Date) -> Admission? {
        guard let job = job(id, now: now) else { return nil }
        return job.digest == digest ? .existing(job.snapshot(ttl: ttl, now: now)) : .conflict
    }

    func admit(id: UUID, image: [UInt8], digest: [UInt8], seqAfter: Int, now: Date) -> Admission {
        jobs.withLockedValue { jobs in
            if let existing = jobs[id], !isExpired(existing, now: now) {
                return existing.digest == digest ? .existing(existing.snapshot(ttl: ttl, now: now)) : .conflict
            }
            let job = ScanJob(id: id, image: image, digest: digest, seqBase: seqAfter, now: now)
            // The answer is the job as created: once queued, a worker may start it at once (and a
            // snapshot taken after that would show a later seq than the PUT made).
            let created = job.snapshot(ttl: ttl, now: now)
            guard scheduler.enqueue(job) else { return .queueFull }
            jobs[id] = job
            return .created(created)
        }
    }

    func snapshot(_ id: UUID, now: Date) -> JobSnapshot? {
        job(id, now: now)?.snapshot(ttl: ttl, now: now)
    }

    func requestCancel(_ id: UUID, now: Date) -> JobSnapshot? {
        guard let job = job(id, now: now) else { return nil }
        if job.requestCancel(now: now) { scheduler.remove(job) }
        return job.snapshot(ttl: ttl, now: now)
    }

    func subscriberRoom(_ id: UUID, limit: Int) -> SubscriberRoom {
        guard let job = job(id, now: Date()) else { return .unknownJob }
        let subscribers = job.subscriberCount
        return job.jobState.isTerminal || subscribers < limit ? .available : .full(subscribers: subscribers)
    }

    func checkedSubscriberRoom(_ id: UUID, limit: Int) -> SubscriberRoom { subscriberRoom(id, limit: limit) }

    func subscribe(_ id: UUID, after: Int, limit: Int) -> JobSubscription? {
        guard let job = job(id, now: Date()) else { return nil }
        let (frames, continuation) = AsyncStream<OutgoingFrame>.makeStream()
        guard let subscriber = job.subscribe(after: after, limit: limit, continuation: continuation) else { return nil }
        return JobSubscription(
            frames: frames, continuation: continuation, latestSeq: { job.latestSeq },
            unsubscribe: { if subscriber >= 0 { job.unsubscribe(subscriber) } })
    }

    func claimNext(now: Date) async -> ClaimedJob? {
        while let job = await scheduler.next() {
            // A job canceled while it waited has no image any more: skip it.
            if let image = job.start(now: Date()) { return ClaimedJob(image: image, job: job) }
        }
        return nil
    }

    func close() { scheduler.close() }

    @discardableResult
    func sweep(now: Date) -> Int {
        jobs.withLockedValue { jobs in
            let expired = jobs.values.filter { isExpired($0, now: now) }.map(\.id)
            for id in expired { jobs.removeValue(forKey: id) }
            return expired.count
        }
    }

    func countByState() -> [JobState: Int] {
        let all = jobs.withLockedValue { Array($0.values) }
        var counts: [JobState: Int] = [:]
        for job in all { counts[job.jobState, default: 0] += 1 }
        return counts
    }

    /// The job with this id, unless unknown or expired.
    private func job(_ id: UUID, now: Date) -> ScanJob? {
        jobs.withLockedValue { jobs in
            guard let job = jobs[id] else { return nil }
            if isExpired(job, now: now) {
                jobs.removeValue(forKey: id)
                return nil
            }
            return job
        }
    }

    private func isExpired(_ job: ScanJob, now: Date) -> Bool {
        guard let finished = job.finishedAt else { return false }
        return now.timeIntervalSince(finished) >= ttl.inSeconds
    }
}
