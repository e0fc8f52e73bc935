import Foundation
import ScanProtocol
import Synchronization

/// The jobs one multiplexed events subscription follows (`/v1/events`, WebSocket or event stream):
/// each job has its own store subscription, replayed after its own cursor, and all of them feed one
/// ordered queue of frames for the single connection. Subscribing a job answers `subscribed` before
/// its first event (or `refused` with the status the one-job route would give); unsubscribing stops
/// its frames at once; a job's subscription ends after its terminal event.
final class SubscriptionSet: Sendable {
    /// What the connection writes, in order.
    enum Frame: Sendable {
        /// An encoded `ServerMessage.event`; `terminal` marks the job's last one.
        case event(String, jobId: UUID, seq: Int, terminal: Bool)
        /// An encoded `ServerMessage.subscribed`.
        case subscribed(String, jobId: UUID)
        /// An encoded `ServerMessage.refused`: the job is not followed.
        case refused(String, jobId: UUID)
        case heartbeat
    }

    private struct Entry {
        let token: Int
        let subscription: JobSubscription
        let forwarder: Task<Void, Never>
    }

    private struct State {
        var entries: [UUID: Entry] = [:]
        var nextToken = 0
        var closed = false
    }

    let frames: AsyncStream<Frame>
    private let output: AsyncStream<Frame>.Continuation
    private let state = Mutex(State())
    private let store: any JobStore
    private let maxSubscribersPerJob: Int
    private let maxJobs: Int

    init(store: any JobStore, maxSubscribersPerJob: Int, maxJobs: Int) {
        self.store = store
        self.maxSubscribersPerJob = maxSubscribersPerJob
        self.maxJobs = maxJobs
        (frames, output) = AsyncStream<Frame>.makeStream()
    }

    /// How many jobs are followed now.
    var count: Int { state.withLock { $0.entries.count } }

    /// Every followed job's latest seq, for a heartbeat.
    var latestSeqs: [JobLatestSeq] {
        state.withLock { state in
            state.entries.map { JobLatestSeq(jobId: $0.key, latestSeq: $0.value.subscription.latestSeq) }.sorted { $0.jobId.uuidString < $1.jobId.uuidString }
        }
    }

    /// A heartbeat of every followed job: each one's latest seq, and the largest of them.
    func heartbeat() -> Heartbeat {
        let jobs = latestSeqs
        return Heartbeat(latestSeq: jobs.map(\.latestSeq).max() ?? 0, timestamp: Date(), jobs: jobs)
    }

    /// Adds (or restarts from a new cursor) each job in order.
    func subscribe(_ cursors: [JobCursor]) async {
        for cursor in cursors { await subscribe(cursor) }
    }

    private func subscribe(_ cursor: JobCursor) async {
        let id = cursor.jobId
        remove(id)
        if count >= maxJobs {
            refuse(id, status: 429, ErrorBody(code: .tooManyJobs, message: "this subscription already follows \(maxJobs) jobs", retryable: true))
            return
        }
        switch (try? await store.checkedSubscriberRoom(id, limit: maxSubscribersPerJob)) ?? .unknownJob {
        case .unknownJob:
            refuse(id, status: 404, ErrorBody(code: .notFound, message: "no job \(id.uuidString.lowercased())", retryable: false))
            return
        case .full(let subscribers):
            refuse(id, status: 429, ErrorBody(code: .tooManySubscribers, message: "job has \(subscribers) open event sockets", retryable: true))
            return
        case .available: break
        }
        guard let subscription = try? await store.subscribe(id, after: cursor.after, limit: maxSubscribersPerJob) else {
            refuse(id, status: 429, ErrorBody(code: .tooManySubscribers, message: "job has too many open event sockets", retryable: true))
            return
        }
        let opened = ServerMessage.subscribed(SubscriptionOpened(jobId: id, after: cursor.after, latestSeq: subscription.latestSeq))
        state.withLock { state in
            guard !state.closed else {
                subscription.end()
                return
            }
            let token = state.nextToken
            state.nextToken += 1
            // Under the lock: `subscribed` is queued before any frame of the forwarder.
            output.yield(.subscribed(Self.text(opened), jobId: id))
            let forwarder = Task { await self.forward(subscription, jobId: id, token: token) }
            state.entries[id] = Entry(token: token, subscription: subscription, forwarder: forwarder)
        }
    }

    /// Stops following the jobs (unknown ones are ignored).
    func unsubscribe(_ ids: [UUID]) {
        for id in ids { remove(id) }
    }

    /// Ends every subscription and the frame queue.
    func close() {
        let entries = state.withLock { state in
            state.closed = true
            defer { state.entries.removeAll() }
            return Array(state.entries.values)
        }
        for entry in entries { end(entry) }
        output.finish()
    }

    /// Queues a heartbeat (the connection encodes it with `latestSeqs`).
    func tick() { output.yield(.heartbeat) }

    private func forward(_ subscription: JobSubscription, jobId: UUID, token: Int) async {
        for await frame in subscription.frames {
            guard case .event(let text, let seq, let terminal) = frame else { continue }
            let current = state.withLock { state in
                // Only the current subscription of the job may write (not one removed or replaced).
                guard state.entries[jobId]?.token == token else { return false }
                output.yield(.event(text, jobId: jobId, seq: seq, terminal: terminal))
                if terminal { state.entries.removeValue(forKey: jobId) }
                return true
            }
            if !current { break }
            if terminal {
                subscription.end()
                return
            }
        }
    }

    private func remove(_ id: UUID) {
        if let entry = state.withLock({ $0.entries.removeValue(forKey: id) }) { end(entry) }
    }

    private func end(_ entry: Entry) {
        entry.forwarder.cancel()
        entry.subscription.end()
        entry.subscription.continuation.finish()
    }

    private func refuse(_ id: UUID, status: Int, _ error: ErrorBody) {
        output.yield(.refused(Self.text(.refused(SubscriptionRefused(jobId: id, status: status, error: error))), jobId: id))
    }

    static func text(_ message: ServerMessage) -> String {
        (try? WireCoding.encode(message)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
