import Foundation
import ScanProtocol

/// Where jobs live: their state, ordered event log, result and uploaded image. The HTTP and
/// WebSocket layers and the workers talk only to this protocol, so a store other than the
/// in-memory one (`MemoryJobStore`) can be added without touching them.
///
/// Invariants every store keeps: a job's events have seq 1, 2, 3… with no gap; nothing is
/// appended after a terminal event; the fraction never goes backwards; a subscriber registered
/// with `after = N` receives every event > N exactly once, in order.
protocol JobStore: Sendable {
    /// Jobs that may wait for a worker; one more is refused with `queueFull`.
    var queueCapacity: Int { get }

    /// The existing job under `id` compared with an upload's digest (`existing` or `conflict`);
    /// nil when there is no such job (or it expired).
    func lookup(_ id: UUID, digest: [UInt8], now: Date) async throws -> Admission?
    /// Creates and enqueues a job, or explains why not, in one atomic step per id. A created job
    /// numbers its events from `seqAfter + 1` (a resubmission continues its client's stream).
    func admit(id: UUID, image: [UInt8], digest: [UInt8], seqAfter: Int, now: Date) async throws -> Admission
    /// The job as `GET /v1/scans/{jobId}` shows it; nil when unknown or expired.
    func snapshot(_ id: UUID, now: Date) async throws -> JobSnapshot?
    /// Asks the job to stop (a queued job ends at once, a running one at its next step); its
    /// snapshot afterwards, or nil when unknown.
    func requestCancel(_ id: UUID, now: Date) async throws -> JobSnapshot?

    /// Whether one more events subscriber would be admitted for `id`. Called from the connection
    /// gate before an upgrade, so it must answer without waiting.
    func subscriberRoom(_ id: UUID, limit: Int) -> SubscriberRoom
    /// The same question answered for certain (a shared store asks its database: the job may have
    /// been uploaded to another instance, or not yet at all).
    func checkedSubscriberRoom(_ id: UUID, limit: Int) async throws -> SubscriberRoom
    /// Replays the events after `after` into a new subscription, then streams live ones; nil when
    /// the job is unknown or already has `limit` subscribers (a finished job always admits).
    func subscribe(_ id: UUID, after: Int, limit: Int) async throws -> JobSubscription?

    /// Waits for the next queued job and claims it for a worker; nil once the store is closed.
    func claimNext(now: Date) async -> ClaimedJob?
    /// Wakes waiting workers with nil and refuses new jobs.
    func close()

    /// Forgets every job whose TTL has passed; returns how many.
    func sweep(now: Date) async throws -> Int
    /// Jobs per state, for `/healthz`.
    func countByState() async throws -> [JobState: Int]
}

/// Outcome of submitting an upload under a client-chosen job id.
enum Admission: Sendable {
    /// A new job was created and queued.
    case created(JobSnapshot)
    /// The same id with the same bytes: the existing job, untouched (no second scan).
    case existing(JobSnapshot)
    /// The same id with different bytes.
    case conflict
    /// The queue is full; try again later.
    case queueFull
}

/// Whether a job can take one more events subscriber.
enum SubscriberRoom: Sendable, Equatable {
    /// No such job (or it expired).
    case unknownJob
    /// The job already has this many open subscribers, the limit.
    case full(subscribers: Int)
    /// One more subscriber is admitted.
    case available
}

/// A job a worker has claimed: the image to scan, and the handle its progress goes through.
struct ClaimedJob: Sendable {
    let image: [UInt8]
    let job: any RunningJob
}

/// A claimed job as its worker sees it: where progress and the end are published, and whether it
/// must stop before its end.
protocol RunningJob: Sendable {
    var id: UUID { get }
    /// Why the scan must stop now; nil while it may go on.
    var stop: JobStop? { get }
    /// The scan ends without a result of this attempt: shutting down mid-scan (the in-memory job
    /// fails, retryable; a shared store's job is given back so another instance runs it), or the
    /// attempt was given up (`JobStop.attemptLost`: nothing more is written by it).
    func abandon() async
    /// Appends an event (ignored after a terminal one); the fraction is clamped so it never goes backwards.
    func appendEvent(state: JobState, stage: ScanStage, fraction: Double, now: Date, result: ScanResult?, error: ErrorBody?) -> Bool
}

extension RunningJob {
    /// Appends an event, with the result or error of a terminal one.
    @discardableResult
    func publish(
        state: JobState, stage: ScanStage, fraction: Double, now: Date, result: ScanResult? = nil, error: ErrorBody? = nil
    ) -> Bool {
        appendEvent(state: state, stage: stage, fraction: fraction, now: now, result: result, error: error)
    }
}

/// Why a running scan stops before its end.
enum JobStop: Sendable, Equatable {
    /// Someone asked the job to stop: it ends `canceled`.
    case canceled
    /// This attempt no longer holds the job (its lease was lost, or its event writer stalled while
    /// the database was away): it ends without a word, and another attempt finishes the job. Never
    /// a `canceled` event.
    case attemptLost
}
