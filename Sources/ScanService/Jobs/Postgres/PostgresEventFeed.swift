import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import ScanProtocol

/// Fan-out of events across instances: whichever instance writes an event, every instance's
/// subscribers get it. One LISTEN connection per instance hears `job:seq` notifications; for each,
/// the instance reads the job's rows it has not yet sent from the events table (the source of truth),
/// so nothing depends on a notification arriving: a subscriber also catches up on every heartbeat
/// tick, and every subscribed job catches up after the listener reconnects.
final class PostgresEventFeed: Sendable {
    private struct Subscriber {
        let continuation: AsyncStream<OutgoingFrame>.Continuation
        var sentThrough: Int
    }

    private struct JobFeed {
        var subscribers: [Int: Subscriber] = [:]
        var latestSeq = 0
        /// A catch-up is running; `dirty`: another was asked for meanwhile.
        var catchingUp = false
        var dirty = false
    }

    private struct State {
        var jobs: [UUID: JobFeed] = [:]
        var nextSubscriber = 0
    }

    private let state = NIOLockedValueBox(State())
    private let table: JobTable
    private let connector: DatabaseConnector
    private let logger: Logger
    /// Wakes workers waiting for a job (a notification of a new or given-back job).
    let wake: @Sendable () -> Void

    init(table: JobTable, connector: DatabaseConnector, logger: Logger, wake: @escaping @Sendable () -> Void) {
        self.table = table
        self.connector = connector
        self.logger = logger
        self.wake = wake
    }

    /// The latest seq this instance knows of `id` while it has subscribers here (the job exists and
    /// is not past its TTL: a finished job's subscribers leave with its terminal event); nil otherwise.
    func followedLatestSeq(_ id: UUID) -> Int? { state.withLockedValue { $0.jobs[id]?.latestSeq } }

    /// Open subscribers of `id` on this instance.
    func subscriberCount(_ id: UUID) -> Int { state.withLockedValue { $0.jobs[id]?.subscribers.count ?? 0 } }

    /// A subscription replaying `id`'s events after `after`, then live ones; nil when `limit` are open.
    func subscribe(_ id: UUID, after: Int, latestSeq: Int, limit: Int) -> JobSubscription? {
        let (frames, continuation) = AsyncStream<OutgoingFrame>.makeStream()
        let subscriber: Int? = state.withLockedValue { state in
            var feed = state.jobs[id] ?? JobFeed()
            guard feed.subscribers.count < limit else { return nil }
            let number = state.nextSubscriber
            state.nextSubscriber += 1
            feed.subscribers[number] = Subscriber(continuation: continuation, sentThrough: after)
            feed.latestSeq = max(feed.latestSeq, latestSeq)
            state.jobs[id] = feed
            return number
        }
        guard let subscriber else { return nil }
        Task { await self.catchUp(id) }
        return JobSubscription(
            frames: frames, continuation: continuation, latestSeq: { [weak self] in self?.latestSeq(id) ?? latestSeq },
            unsubscribe: { [weak self] in self?.remove(id, subscriber) })
    }

    private func latestSeq(_ id: UUID) -> Int { state.withLockedValue { $0.jobs[id]?.latestSeq ?? 0 } }

    private func remove(_ id: UUID, _ subscriber: Int) {
        state.withLockedValue { state in
            state.jobs[id]?.subscribers.removeValue(forKey: subscriber)
            if state.jobs[id]?.subscribers.isEmpty == true { state.jobs.removeValue(forKey: id) }
        }
    }

    /// Sends every subscriber of `id` the rows after what it was sent; one catch-up per job at a time.
    func catchUp(_ id: UUID) async {
        let start: Int? = state.withLockedValue { state in
            guard var feed = state.jobs[id], !feed.subscribers.isEmpty else { return nil }
            if feed.catchingUp {
                feed.dirty = true
                state.jobs[id] = feed
                return nil
            }
            feed.catchingUp = true
            feed.dirty = false
            state.jobs[id] = feed
            return feed.subscribers.values.map(\.sentThrough).min()
        }
        guard var after = start else { return }
        while true {
            // Bounded like a request's work: a query on a connection that died under it (the database
            // paused or gone mid-query) would otherwise hold `catchingUp` for ever, and the job's
            // subscribers here would never get another event.
            let table = self.table, from = after
            let frames = (try? await withDatabaseDeadline(PostgresJobStore.requestDeadline) { try await table.frames(id, after: from) }) ?? []
            let again: Int? = state.withLockedValue { state in
                guard var feed = state.jobs[id] else { return nil }
                for (seq, frame) in frames {
                    let terminal = Self.isTerminal(frame)
                    feed.latestSeq = max(feed.latestSeq, seq)
                    // The terminal event goes to every subscriber, also one resuming at (or past) its seq: as
                    // in the memory store, a stream always ends with it.
                    for (number, subscriber) in feed.subscribers where seq > subscriber.sentThrough || terminal {
                        subscriber.continuation.yield(.event(frame, seq: seq, terminal: terminal))
                        feed.subscribers[number]?.sentThrough = seq
                        if terminal {
                            subscriber.continuation.finish()
                            feed.subscribers.removeValue(forKey: number)
                        }
                    }
                }
                if feed.subscribers.isEmpty {
                    state.jobs.removeValue(forKey: id)
                    return nil
                }
                guard feed.dirty else {
                    feed.catchingUp = false
                    state.jobs[id] = feed
                    return nil
                }
                feed.dirty = false
                state.jobs[id] = feed
                return feed.subscribers.values.map(\.sentThrough).min()
            }
            guard let next = again else { return }
            after = next
        }
    }

    /// Catches up every job with subscribers that is behind the table (each heartbeat tick, and after
    /// the listener reconnects): one query for the latest seq of all of them, then a catch-up only for
    /// the jobs with rows a subscriber has not been sent (at most `catchUpWidth` at once).
    func catchUpAll() async {
        let sent = state.withLockedValue { state in state.jobs.mapValues { $0.subscribers.values.map(\.sentThrough).min() ?? 0 } }
        guard !sent.isEmpty else { return }
        let table = self.table, ids = Array(sent.keys)
        let latest = (try? await withDatabaseDeadline(PostgresJobStore.requestDeadline) { try await table.latestSeqs(ids) }) ?? sent.mapValues { $0 + 1 }
        let behind = sent.compactMap { id, through in (latest[id] ?? 0) > through ? id : nil }
        await withTaskGroup(of: Void.self) { group in
            var pending = behind.makeIterator()
            for _ in 0..<Self.catchUpWidth {
                guard let id = pending.next() else { break }
                group.addTask { await self.catchUp(id) }
            }
            while await group.next() != nil {
                if let id = pending.next() { group.addTask { await self.catchUp(id) } }
            }
        }
    }

    /// Catch-ups of different jobs running at once (each is one query on the pool).
    static let catchUpWidth = 8

    /// Whether a notification of `seq` for `id` brings something a subscriber here lacks.
    private func needsCatchUp(_ id: UUID, seq: Int) -> Bool {
        state.withLockedValue { state in
            guard let feed = state.jobs[id] else { return false }
            return feed.subscribers.values.contains { $0.sentThrough < seq }
        }
    }

    /// Listens for notifications until the task is canceled, reconnecting after a failure (each
    /// reconnect catches every subscribed job up from the table: nothing sent meanwhile is lost).
    func listen() async {
        while !Task.isCancelled {
            do {
                let connection = try await connector.connect(logger: logger)
                defer { Task { try? await connection.close() } }
                await catchUpAll()
                wake()
                try await connection.listen(on: JobTable.eventsChannel) { notifications in
                    for try await notification in notifications {
                        if notification.payload.hasSuffix(JobTable.newJobMark) { wake() }
                        // Each job catches up on its own task (one at a time per job, by `catchingUp`), so a
                        // slow read for one job never holds the notifications of the others.
                        let parts = notification.payload.split(separator: ":")
                        if let text = parts.first, let id = UUID(uuidString: String(text)),
                            needsCatchUp(id, seq: parts.dropFirst().first.flatMap { Int($0) } ?? .max)
                        {
                            Task { await self.catchUp(id) }
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("database notifications lost; reconnecting", metadata: ["error": "\(String(describing: error).prefix(200))"])
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Whether an encoded frame is a job's terminal event.
    static func isTerminal(_ frame: String) -> Bool {
        guard case .event(let event)? = try? WireCoding.decode(ServerMessage.self, from: Data(frame.utf8)) else { return false }
        return event.state.isTerminal
    }
}
