import BookscanBase
import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import ScanProtocol
import ServiceLifecycle

/// The job store shared by every `bookscan serve --database …` instance: jobs, events and images
/// in PostgreSQL (`JobTable`), queue claims with leases, and cross-instance fan-out through one
/// LISTEN connection per instance (`PostgresEventFeed`). The HTTP and WebSocket layers see only
/// `JobStore`.
final class PostgresJobStore: JobStore {
    let table: JobTable
    let feed: PostgresEventFeed
    let instance: String
    let queueCapacity: Int
    let lease: Duration
    let maxAttempts: Int
    private let logger: Logger
    private let metrics: ServiceMetrics
    /// Renews every lease this instance holds, in one statement per interval.
    let keeper: LeaseKeeper
    private let renewals: Task<Void, Never>
    /// Bumped by every notification and upload: a waiting worker looks for a job at once.
    private let wakeups: WakeCounter
    private let closed = NIOLockedValueBox(false)

    init(
        client: PostgresClient, connector: DatabaseConnector, settings: DatabaseSettings, ttl: Duration, queueCapacity: Int, metrics: ServiceMetrics,
        logger: Logger
    ) {
        let table = JobTable(client: client, ttl: ttl, logger: logger)
        let wakeups = WakeCounter()
        self.table = table
        self.wakeups = wakeups
        self.feed = PostgresEventFeed(
            table: table, connector: connector, logger: logger,
            wake: {
                metrics.notificationReceived()
                wakeups.bump()
            })
        self.metrics = metrics
        let keeper = LeaseKeeper(table: table, lease: settings.lease, metrics: metrics, logger: logger)
        self.keeper = keeper
        renewals = Task { await keeper.run() }
        metrics.registerSharedStore()
        self.instance = settings.instance
        self.queueCapacity = queueCapacity
        self.lease = settings.lease
        self.maxAttempts = settings.maxAttempts
        self.logger = logger
    }

    /// The store of `database` with the services it needs running (the connection pool, the
    /// notification listener and catch-up), migrated first unless told not to.
    static func make(
        _ database: DatabaseSettings, ttl: Duration, queueCapacity: Int, heartbeat: Duration, metrics: ServiceMetrics, logger: Logger
    ) async throws -> (PostgresJobStore, [any Service]) {
        if database.migrate { _ = try await DatabaseSchema.migrate(database.url, logger: logger) }
        let connector = DatabaseConnector(settings: database)
        let client = PostgresClient(configuration: connector.clientConfiguration, backgroundLogger: logger)
        let store = PostgresJobStore(
            client: client, connector: connector, settings: database, ttl: ttl, queueCapacity: queueCapacity, metrics: metrics, logger: logger)
        return (store, [client, EventFeedService(feed: store.feed, tick: heartbeat)])
    }

    func lookup(_ id: UUID, digest: [UInt8], now: Date) async throws -> Admission? {
        try await answered { try await self.table.lookup(id, digest: digest, now: now) }
    }

    func admit(id: UUID, image: [UInt8], digest: [UInt8], seqAfter: Int, now: Date) async throws -> Admission {
        let admission = try await answered {
            try await self.table.admit(id: id, image: image, digest: digest, seqAfter: seqAfter, now: now, queueCapacity: self.queueCapacity)
        }
        if case .created = admission { wakeups.bump() }
        return admission
    }

    func snapshot(_ id: UUID, now: Date) async throws -> JobSnapshot? {
        try await answered { try await self.table.snapshot(id, now: now) }
    }

    func requestCancel(_ id: UUID, now: Date) async throws -> JobSnapshot? { try await answered { try await self.table.requestCancel(id, now: now) } }

    /// Answers without waiting (the connection gate asks): a job this instance has not seen may exist
    /// (another instance took its upload), so only the subscriber cap is judged here; the upgrade
    /// handler then asks `checkedSubscriberRoom`, which reads the table.
    func subscriberRoom(_ id: UUID, limit: Int) -> SubscriberRoom {
        let subscribers = feed.subscriberCount(id)
        return subscribers < limit ? .available : .full(subscribers: subscribers)
    }

    func checkedSubscriberRoom(_ id: UUID, limit: Int) async throws -> SubscriberRoom {
        // A job this instance already follows exists: no read (10 subscribers of a job cost one).
        if feed.followedLatestSeq(id) != nil { return subscriberRoom(id, limit: limit) }
        guard let snapshot = try await answered({ try await self.table.snapshot(id, now: Date()) }) else { return .unknownJob }
        return snapshot.state.isTerminal ? .available : subscriberRoom(id, limit: limit)
    }

    func subscribe(_ id: UUID, after: Int, limit: Int) async throws -> JobSubscription? {
        if let latest = feed.followedLatestSeq(id) { return feed.subscribe(id, after: after, latestSeq: latest, limit: limit) }
        guard let snapshot = try await answered({ try await self.table.snapshot(id, now: Date()) }) else { return nil }
        return feed.subscribe(id, after: after, latestSeq: snapshot.seq, limit: snapshot.state.isTerminal ? .max : limit)
    }

    func claimNext(now: Date) async -> ClaimedJob? {
        while !closed.withLockedValue({ $0 }) {
            // At most `claimers` idle workers ask the database; the others wait for a turn without a
            // query (else every notification of a new job would wake all of them into a claim each).
            let mayClaim = claimTurns.withLockedValue { turns -> Bool in
                guard turns > 0 else { return false }
                turns -= 1
                return true
            }
            guard mayClaim else {
                try? await Task.sleep(for: .milliseconds(50))
                continue
            }
            defer { claimTurns.withLockedValue { $0 += 1 } }
            while !closed.withLockedValue({ $0 }) {
                let seen = wakeups.value
                do {
                    let started = ContinuousClock.now
                    // Bounded like a request: a claim caught by an outage could otherwise wait for good, and
                    // with it every worker of this instance. One that commits after its deadline is a lease
                    // nobody holds; it expires and the job is claimed again.
                    let (table, instance, lease, maxAttempts) = (table, instance, lease, maxAttempts)
                    let claimed = try await withDatabaseDeadline(Self.claimDeadline) {
                        try await table.claim(owner: instance, lease: lease, maxAttempts: maxAttempts, now: Date())
                    }
                    if let claim = claimed {
                        metrics.claimed(after: ContinuousClock.now - started)
                        if claim.attempt.number > 1 { metrics.jobRescued() }
                        let job = PostgresRunningJob(id: claim.id, attempt: claim.attempt, table: table, lease: lease, keeper: keeper, logger: logger)
                        return ClaimedJob(image: claim.image, job: job)
                    }
                } catch {
                    logger.warning("claiming a job failed", metadata: ["error": "\(String(describing: error).prefix(200))"])
                }
                // A new job's notification or an upload here wakes the claimer at once; otherwise it looks
                // again within a lease (a job whose instance died is claimable once its lease expires).
                let until = ContinuousClock.now + min(lease, .seconds(1))
                while ContinuousClock.now < until, wakeups.value == seen, !closed.withLockedValue({ $0 }) {
                    try? await Task.sleep(for: .milliseconds(25))
                }
            }
        }
        return nil
    }

    /// How long a claim may take before the claimer gives it up and asks again.
    static let claimDeadline: Duration = .seconds(10)

    /// Idle workers that may ask the database for a job at once.
    static let claimers = 2
    private let claimTurns = NIOLockedValueBox(PostgresJobStore.claimers)

    func close() {
        closed.withLockedValue { $0 = true }
        renewals.cancel()
    }

    /// Deletes expired jobs; the cut-off is the database's clock (`now` is this instance's, unused).
    func sweep(now: Date) async throws -> Int { try await answered { try await self.table.sweep() } }

    func countByState() async throws -> [JobState: Int] { try await answered { try await self.table.countByState() } }

    /// How long a request waits for the database before it is answered 503 (the pool would wait
    /// for a connection as long as the database is away).
    static let requestDeadline: Duration = .seconds(3)

    /// Runs a request's database work, or throws `DatabaseTimeout` after `requestDeadline`.
    private func answered<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withDatabaseDeadline(Self.requestDeadline, work)
    }
}

/// A counter any thread bumps and waiters compare against what they saw.
final class WakeCounter: Sendable {
    private let count = NIOLockedValueBox(0)
    func bump() { count.withLockedValue { $0 += 1 } }
    var value: Int { count.withLockedValue { $0 } }
}
