import BookscanTestSupport
import Foundation
import Logging
import PostgresNIO
import ScanProtocol
import Testing

@testable import ScanService

/// How an instance's sessions with the database are bounded, on the shared throw-away cluster: the
/// pool's size, the server-side timeouts that end work a caller stopped waiting for, TTLs judged by
/// the database's clock, and instance names unique per process start.
@Suite("PostgreSQL sessions", .serialized, .enabled(if: PostgresCluster.runnable, "PostgreSQL is not installed (scripts/bootstrap installs it)"))
struct DatabaseSessionTests {
    /// Runs `body` with a pool of `settings` on a fresh database (migrated); nil PostgreSQL: skipped.
    func withPool(
        poolSize: Int = DatabaseSettings.defaultPoolSize, statementTimeout: Duration = DatabaseSettings.defaultStatementTimeout,
        _ body: (PostgresClient, DatabaseSettings) async throws -> Void
    ) async throws {
        guard let database = try PostgresCluster.testDatabase() else { return }
        let url = try DatabaseURL(database.url)
        _ = try await DatabaseSchema.migrate(url)
        let settings = DatabaseSettings(url: url, poolSize: poolSize, statementTimeout: statementTimeout)
        let client = PostgresClient(configuration: DatabaseConnector(settings: settings).clientConfiguration, backgroundLogger: .quiet("test.pool"))
        let running = Task { await client.run() }
        defer { running.cancel() }
        try await body(client, settings)
    }

    @Test("the pool opens at most --database-pool-size connections: eight queries at once share two backends")
    func poolSize() async throws {
        try await withPool(poolSize: 2) { client, _ in
            let pids = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        try await client.query("SELECT pg_backend_pid() FROM pg_sleep(0.2)", logger: .quiet("test")).decode(Int.self)
                            .first { _ in true } ?? 0
                    }
                }
                return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
            }
            #expect(pids.count <= 2 && !pids.isEmpty, "\(pids)")
        }
    }

    @Test("every pooled session has statement_timeout and idle_in_transaction_session_timeout: a statement past it is ended by the server")
    func serverTimeouts() async throws {
        try await withPool(statementTimeout: .seconds(1)) { client, _ in
            let logger = Logger.quiet("test")
            let shown = try await client.query("SHOW statement_timeout", logger: logger).decode(String.self).first { _ in true }
            #expect(shown == "1s")
            let idle = try await client.query("SHOW idle_in_transaction_session_timeout", logger: logger).decode(String.self).first { _ in true }
            #expect(idle == "1s")
            // Bounded by a deadline of its own only so a broken build fails instead of hanging.
            await #expect(throws: PSQLError.self) {
                _ = try await withDatabaseDeadline(.seconds(20)) { try await client.query("SELECT pg_sleep(3)", logger: logger).collect() }
            }
        }
    }

    @Test("TTLs run on the database's clock: an instance whose clock is 2 h ahead neither hides nor reaps a job finished just now (TTL 1 h)")
    func ttlOnDatabaseClock() async throws {
        try await withPool { client, settings in
            let logger = Logger.quiet("test")
            let store = PostgresJobStore(
                client: client, connector: DatabaseConnector(settings: settings), settings: settings, ttl: .seconds(3600), queueCapacity: 4,
                metrics: ServiceMetrics(), logger: logger)
            defer { store.close() }
            let id = UUID()
            _ = try await store.admit(id: id, image: [1, 2, 3], digest: [1], seqAfter: 0, now: Date())
            #expect(try await store.requestCancel(id, now: Date())?.state == .canceled)
            let ahead = Date().addingTimeInterval(2 * 3600)
            #expect(try await store.snapshot(id, now: ahead)?.state == .canceled)
            #expect(try await store.sweep(now: ahead) == 0)
            #expect(try await store.countByState() == [.canceled: 1])
        }
    }

    @Test("the default instance name is host-pid plus a suffix drawn at process start (containers all run as pid 1); a given name is kept")
    func instanceNames() throws {
        let url = try DatabaseURL("postgres://u@db.example/books", environment: [:])
        let name = DatabaseSettings(url: url).instance
        let prefix = "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)-"
        #expect(name.hasPrefix(prefix) && name.count == prefix.count + 6, "\(name)")
        #expect(DatabaseSettings(url: url).instance == name, "one name per process start")
        #expect(DatabaseSettings(url: url, instance: "web-1").instance == "web-1")
    }
}
