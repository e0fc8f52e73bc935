import BookscanTestSupport
import Foundation
import Logging
import PostgresNIO
import ScanProtocol
import Synchronization
import Testing

@testable import ScanService

/// Which `JobStore` a conformance test runs against.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory
    case postgres

    var testDescription: String { rawValue }
}

/// A real store of one kind for one test: the in-memory one, or the PostgreSQL one on a fresh
/// database of the shared throw-away cluster with its pool and notification listener running.
enum StoreUnderTest {
    /// The lease of the PostgreSQL store's claims in these tests (renewals, so cancel requests, come every third of it).
    static let lease: Duration = .seconds(1)

    /// Runs `body` with a store of `kind`; nil PostgreSQL outside CI: skipped (under `CI=true` it fails).
    static func with(
        _ kind: StoreKind, ttl: Duration = .seconds(3600), queueCapacity: Int = 16, _ body: (any JobStore) async throws -> Void
    ) async throws {
        switch kind {
        case .memory:
            let store = MemoryJobStore(ttl: ttl, queueCapacity: queueCapacity)
            defer { store.close() }
            try await body(store)
        case .postgres:
            guard let database = try PostgresCluster.testDatabase() else { return }
            let url = try DatabaseURL(database.url)
            _ = try await DatabaseSchema.migrate(url)
            var logger = Logger(label: "test.conformance")
            logger.logLevel = .critical
            let settings = DatabaseSettings(url: url, instance: "conformance", lease: lease)
            let connector = DatabaseConnector(settings: settings)
            let client = PostgresClient(configuration: connector.clientConfiguration, backgroundLogger: logger)
            let pool = Task { await client.run() }
            let store = PostgresJobStore(
                client: client, connector: connector, settings: settings, ttl: ttl, queueCapacity: queueCapacity, metrics: ServiceMetrics(),
                logger: logger)
            let feed = Task {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask { await store.feed.listen() }
                    group.addTask { while (try? await Task.sleep(for: .milliseconds(500))) != nil { await store.feed.catchUpAll() } }
                }
            }
            defer {
                store.close()
                feed.cancel()
                pool.cancel()
            }
            try await body(store)
        }
    }

    /// The events a subscription delivers until its terminal one (or `bound` passes: a stream that
    /// never ends must fail the test, not hang it).
    static func events(_ subscription: JobSubscription, bound: Duration = .seconds(20)) async -> [JobEvent] {
        let collected = Collected()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await frame in subscription.frames {
                    guard case .event(let text, _, let terminal) = frame else { continue }
                    if case .event(let event)? = try? WireCoding.decode(ServerMessage.self, from: Data(text.utf8)) { collected.append(event) }
                    if terminal { return }
                }
            }
            group.addTask { try? await Task.sleep(for: bound) }
            await group.next()
            group.cancelAll()
            subscription.continuation.finish()
        }
        subscription.end()
        return collected.events
    }

    /// Waits (bounded) until `condition` holds; whether it did.
    @discardableResult
    static func eventually(_ bound: Duration = .seconds(20), _ condition: () async throws -> Bool) async rethrows -> Bool {
        let end = ContinuousClock.now + bound
        while ContinuousClock.now < end {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return try await condition()
    }
}

/// Events gathered by a collecting task.
final class Collected: Sendable {
    private let box = Mutex<[JobEvent]>([])
    func append(_ event: JobEvent) { box.withLock { $0.append(event) } }
    var events: [JobEvent] { box.withLock { $0 } }
}
