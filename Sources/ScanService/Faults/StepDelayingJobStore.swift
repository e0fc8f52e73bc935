import Foundation
import ScanProtocol

/// Test seam (`FaultSeams.scanStepDelay`): the store as the workers see it, handing out each claimed
/// job as a `StepDelayedJob`; everything else is the store's own answer.
struct StepDelayingJobStore: JobStore {
    let base: any JobStore
    let delay: Duration

    var queueCapacity: Int { base.queueCapacity }

    func claimNext(now: Date) async -> ClaimedJob? {
        guard let claimed = await base.claimNext(now: now) else { return nil }
        return ClaimedJob(image: claimed.image, job: StepDelayedJob(base: claimed.job, delay: delay))
    }

    func lookup(_ id: UUID, digest: [UInt8], now: Date) async throws -> Admission? { try await base.lookup(id, digest: digest, now: now) }
    func admit(id: UUID, image: [UInt8], digest: [UInt8], seqAfter: Int, now: Date) async throws -> Admission {
        try await base.admit(id: id, image: image, digest: digest, seqAfter: seqAfter, now: now)
    }
    func snapshot(_ id: UUID, now: Date) async throws -> JobSnapshot? { try await base.snapshot(id, now: now) }
    func requestCancel(_ id: UUID, now: Date) async throws -> JobSnapshot? { try await base.requestCancel(id, now: now) }
    func subscriberRoom(_ id: UUID, limit: Int) -> SubscriberRoom { base.subscriberRoom(id, limit: limit) }
    func checkedSubscriberRoom(_ id: UUID, limit: Int) async throws -> SubscriberRoom { try await base.checkedSubscriberRoom(id, limit: limit) }
    func subscribe(_ id: UUID, after: Int, limit: Int) async throws -> JobSubscription? { try await base.subscribe(id, after: after, limit: limit) }
    func close() { base.close() }
    func sweep(now: Date) async throws -> Int { try await base.sweep(now: now) }
    func countByState() async throws -> [JobState: Int] { try await base.countByState() }
}
