import BookscanTestSupport
import Foundation
import ScanProtocol
import Testing

@testable import ScanService

/// One behaviour for every `JobStore`: the same tests run against the in-memory store and the
/// PostgreSQL one (a real throw-away cluster; under `CI=true` a missing PostgreSQL fails the run).
@Suite("JobStore conformance", .serialized)
struct JobStoreConformanceTests {
    static let image: [UInt8] = Array("not really a jpeg: no worker scans it here".utf8)

    /// Admits a job and claims it (the only one queued) for a worker.
    func admitAndClaim(_ store: any JobStore, _ id: UUID = UUID(), seqAfter: Int = 0) async throws -> any RunningJob {
        guard case .created = try await store.admit(id: id, image: Self.image, digest: [1], seqAfter: seqAfter, now: Date()) else {
            throw ConformanceFailure.notCreated
        }
        guard let claimed = await store.claimNext(now: Date()) else { throw ConformanceFailure.notClaimed }
        #expect(claimed.job.id == id && claimed.image == Self.image)
        return claimed.job
    }

    /// Publishes a run through to success and waits until the store shows it finished; the final seq.
    func runToSuccess(_ store: any JobStore, _ job: any RunningJob) async throws -> Int {
        job.publish(state: .running, stage: .decoding, fraction: 0.1, now: Date())
        job.publish(state: .running, stage: .findingRows, fraction: 0.4, now: Date())
        job.publish(state: .running, stage: .readingTitles, fraction: 0.8, now: Date())
        let result = ScanResult(imageWidth: 1, imageHeight: 1, workingWidth: 1, workingHeight: 1, rows: [], spines: [], timings: [])
        job.publish(state: .succeeded, stage: .done, fraction: 1, now: Date(), result: result)
        var final = 0
        let finished = try await StoreUnderTest.eventually {
            guard let snapshot = try await store.snapshot(job.id, now: Date()), snapshot.state == .succeeded else { return false }
            final = snapshot.seq
            return true
        }
        #expect(finished)
        return final
    }

    @Test("a subscriber resuming at the last seq of a finished job gets its terminal event (once), and so does one resuming past it", arguments: StoreKind.allCases)
    func resumeAtLastSeq(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { store in
            let job = try await admitAndClaim(store)
            let final = try await runToSuccess(store, job)
            for after in [final, final + 3] {
                let subscription = try #require(try await store.subscribe(job.id, after: after, limit: 4))
                let events = await StoreUnderTest.events(subscription)
                #expect(events.map(\.seq) == [final] && events.first?.state == .succeeded, "after \(after): \(events.map(\.seq))")
            }
        }
    }

    @Test("replay: every event after N exactly once, in order, ending with the terminal one; a resubmitted job numbers from seqAfter + 1", arguments: StoreKind.allCases)
    func replayInOrder(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { store in
            let job = try await admitAndClaim(store, seqAfter: 4)
            let live = try #require(try await store.subscribe(job.id, after: 0, limit: 4))
            let final = try await runToSuccess(store, job)
            #expect(final >= 9, "queued, three steps and the end after seq 4")
            let streamed = await StoreUnderTest.events(live)
            #expect(streamed.map(\.seq) == Array(5...final))
            #expect(zip(streamed, streamed.dropFirst()).allSatisfy { $0.fraction <= $1.fraction })
            let replayed = await StoreUnderTest.events(try #require(try await store.subscribe(job.id, after: 6, limit: 4)))
            #expect(replayed.map(\.seq) == Array(7...final))
            #expect(replayed.filter(\.state.isTerminal).count == 1 && replayed.last?.state == .succeeded && replayed.last?.fraction == 1)
        }
    }

    @Test("a finished job past its TTL but not yet reaped: the same upload makes a new job, not 503 queue_full", arguments: StoreKind.allCases)
    func expiredUnreapedReupload(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind, ttl: .seconds(1)) { store in
            let id = UUID()
            guard case .created = try await store.admit(id: id, image: Self.image, digest: [7], seqAfter: 0, now: Date()) else {
                Issue.record("not created")
                return
            }
            #expect(try await store.requestCancel(id, now: Date())?.state == .canceled)
            // The TTL passes; no sweep runs.
            try await Task.sleep(for: .milliseconds(1500))
            #expect(try await store.snapshot(id, now: Date()) == nil)
            #expect(try await store.lookup(id, digest: [7], now: Date()) == nil)
            guard case .created(let again) = try await store.admit(id: id, image: Self.image, digest: [7], seqAfter: 2, now: Date()) else {
                Issue.record("the expired job's id was not free again")
                return
            }
            #expect(again.state == .queued && again.seq == 3)
        }
    }

    @Test("admission: same bytes is the existing job, other bytes a conflict, one more than the queue holds is refused", arguments: StoreKind.allCases)
    func admission(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind, queueCapacity: 1) { store in
            let id = UUID()
            guard case .created(let created) = try await store.admit(id: id, image: Self.image, digest: [1], seqAfter: 0, now: Date()) else {
                Issue.record("not created")
                return
            }
            #expect(created.seq == 1 && created.state == .queued)
            guard case .existing = try await store.admit(id: id, image: Self.image, digest: [1], seqAfter: 0, now: Date()) else {
                Issue.record("not existing")
                return
            }
            guard case .conflict = try await store.admit(id: id, image: [9], digest: [9], seqAfter: 0, now: Date()) else {
                Issue.record("not a conflict")
                return
            }
            guard case .queueFull = try await store.admit(id: UUID(), image: Self.image, digest: [2], seqAfter: 0, now: Date()) else {
                Issue.record("not refused")
                return
            }
        }
    }

    @Test("cancel: a queued job ends at once and its subscriber gets the terminal event; a running one is told to stop (canceled, not lost) and ends canceled", arguments: StoreKind.allCases)
    func cancel(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { store in
            let queued = UUID()
            _ = try await store.admit(id: queued, image: Self.image, digest: [1], seqAfter: 0, now: Date())
            let watching = try #require(try await store.subscribe(queued, after: 0, limit: 4))
            #expect(try await store.requestCancel(queued, now: Date())?.state == .canceled)
            let events = await StoreUnderTest.events(watching)
            #expect(events.map(\.seq) == [1, 2] && events.last?.state == .canceled)

            let job = try await admitAndClaim(store)
            job.publish(state: .running, stage: .decoding, fraction: 0.1, now: Date())
            #expect(try await store.requestCancel(job.id, now: Date())?.state.isTerminal == false)
            #expect(await StoreUnderTest.eventually { job.stop == .canceled })
            job.publish(
                state: .canceled, stage: .done, fraction: 0, now: Date(),
                error: ErrorBody(code: .canceled, message: "the job was canceled", retryable: false))
            #expect(await StoreUnderTest.eventually { (try? await store.snapshot(job.id, now: Date()))??.state == .canceled })
        }
    }

    @Test("unknown jobs: no snapshot, no subscription, no cancel; a subscriber cap holds until the job ends", arguments: StoreKind.allCases)
    func unknownAndLimits(_ kind: StoreKind) async throws {
        try await StoreUnderTest.with(kind) { store in
            let unknown = UUID()
            #expect(try await store.snapshot(unknown, now: Date()) == nil)
            #expect(try await store.subscribe(unknown, after: 0, limit: 4) == nil)
            #expect(try await store.requestCancel(unknown, now: Date()) == nil)
            #expect(try await store.checkedSubscriberRoom(unknown, limit: 4) == .unknownJob)
            let id = UUID()
            _ = try await store.admit(id: id, image: Self.image, digest: [1], seqAfter: 0, now: Date())
            let first = try #require(try await store.subscribe(id, after: 0, limit: 1))
            #expect(try await store.checkedSubscriberRoom(id, limit: 1) == .full(subscribers: 1))
            #expect(try await store.subscribe(id, after: 0, limit: 1) == nil)
            first.end()
            #expect(try await store.checkedSubscriberRoom(id, limit: 1) == .available)
        }
    }
}

/// A conformance step that could not set its job up.
enum ConformanceFailure: Error {
    case notCreated
    case notClaimed
}
