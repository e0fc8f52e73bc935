import BookscanTestSupport
import Foundation
import Logging
import PostgresNIO
import ScanProtocol
import Testing

@testable import ScanService

/// The PostgreSQL job store's schema on a real, throw-away cluster (never a mock): migrations from
/// an empty database, several instances migrating at once, and a database newer than the build.
/// Skipped with one line when PostgreSQL is not installed; under `CI=true` that fails the run.
@Suite("PostgreSQL schema migrations", .serialized, .enabled(if: PostgresCluster.runnable, "PostgreSQL is not installed (scripts/bootstrap installs it)"))
struct SchemaMigrationTests {
    /// A fresh, empty database, or nil (skipped) when PostgreSQL is missing outside CI.
    static func database() throws -> TestDatabase? { try PostgresCluster.testDatabase() }

    @Test("an empty database gets every migration once, recorded with its name; a second run applies nothing")
    func fromEmpty() async throws {
        guard let cluster = try Self.database() else { return }
        let url = try DatabaseURL(cluster.url)
        #expect(try await DatabaseSchema.migrate(url) == Array(1...DatabaseSchema.latestVersion))
        #expect(try await DatabaseSchema.migrate(url) == [])
        let recorded = try cluster.psql("SELECT version || ':' || name FROM bookscan_migrations ORDER BY version")
        #expect(recorded.split(separator: "\n").count == DatabaseSchema.latestVersion)
        let tables = try cluster.psql("SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE tablename LIKE 'bookscan_%'")
        #expect(tables.trimmingCharacters(in: .whitespacesAndNewlines) == "bookscan_events,bookscan_images,bookscan_jobs,bookscan_migrations")
        // The events table's key is (job, seq): a second row for the same seq is refused.
        try cluster.psql(
            "INSERT INTO bookscan_jobs (id, digest, state, stage, latest_seq, image_bytes, created_at, updated_at) "
                + "VALUES ('6f1c2a4e-0000-4000-8000-000000000001', '\\x00', 'queued', 'queued', 1, 1, now(), now())")
        try cluster.psql("INSERT INTO bookscan_events VALUES ('6f1c2a4e-0000-4000-8000-000000000001', 1, '{}')")
        #expect(throws: PostgresCluster.StartFailed.self) {
            try cluster.psql("INSERT INTO bookscan_events VALUES ('6f1c2a4e-0000-4000-8000-000000000001', 1, '{}')")
        }
    }

    @Test("five instances migrating at once: each migration is applied exactly once, and every instance ends on the latest schema")
    func concurrentStarts() async throws {
        guard let cluster = try Self.database() else { return }
        let url = try DatabaseURL(cluster.url)
        let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
            for _ in 0..<5 { group.addTask { try await DatabaseSchema.migrate(url) } }
            var all: [[Int]] = []
            for try await versions in group { all.append(versions) }
            return all
        }
        #expect(applied.flatMap { $0 }.sorted() == Array(1...DatabaseSchema.latestVersion), "\(applied)")
        #expect(try cluster.psql("SELECT count(*) FROM bookscan_migrations").trimmingCharacters(in: .whitespacesAndNewlines) == "\(DatabaseSchema.latestVersion)")
    }

    @Test("a database of the previous schema version, with jobs in it, is upgraded in place: the jobs, their events and images kept; the new checks and column in force; the old jobs go on with the store")
    func fromPreviousVersion() async throws {
        guard let cluster = try Self.database() else { return }
        let url = try DatabaseURL(cluster.url)
        let previous = DatabaseSchema.latestVersion - 1
        #expect(try await DatabaseSchema.migrate(url, upTo: previous) == Array(1...previous))
        // Rows as the previous build wrote them: a running job (seq 2, its image) and a finished one.
        let running = "6f1c2a4e-0000-4000-8000-0000000000a1", finished = "6f1c2a4e-0000-4000-8000-0000000000a2"
        for (id, state, seq) in [(running, "running", 2), (finished, "succeeded", 3)] {
            try cluster.psql(
                "INSERT INTO bookscan_jobs (id, digest, state, stage, fraction, latest_seq, image_bytes, created_at, updated_at, lease_owner) "
                    + "VALUES ('\(id)', '\\x01', '\(state)', 'detecting_spines', 0.5, \(seq), 3, now(), now(), 'old-instance')")
            for n in 1...seq { try cluster.psql("INSERT INTO bookscan_events VALUES ('\(id)', \(n), '{\"seq\":\(n)}')") }
        }
        try cluster.psql("INSERT INTO bookscan_images VALUES ('\(running)', '\\x010203')")
        #expect(try await DatabaseSchema.migrate(url) == [DatabaseSchema.latestVersion])
        #expect(try cluster.psql("SELECT count(*) FROM bookscan_events").hasPrefix("5"))
        #expect(try cluster.psql("SELECT length(bytes) FROM bookscan_images").hasPrefix("3"))
        #expect(try cluster.psql("SELECT max(version) FROM bookscan_migrations").hasPrefix("\(DatabaseSchema.latestVersion)"))
        // The new checks hold: an unknown state, a fraction above 1, a seq 0 are refused.
        #expect(throws: PostgresCluster.StartFailed.self) { try cluster.psql("UPDATE bookscan_jobs SET state = 'done' WHERE id = '\(running)'") }
        #expect(throws: PostgresCluster.StartFailed.self) { try cluster.psql("UPDATE bookscan_jobs SET fraction = 1.5 WHERE id = '\(running)'") }
        #expect(throws: PostgresCluster.StartFailed.self) { try cluster.psql("INSERT INTO bookscan_events VALUES ('\(running)', 0, '{}')") }
        // The job the old build left running goes on: its next event is seq 3 and the finisher is recorded.
        try await withPostgresClient(url) { client in
            let table = JobTable(client: client, ttl: .seconds(3600), logger: Logger(label: "test"))
            let id = try #require(UUID(uuidString: running))
            let next = try await table.append(id, state: .succeeded, stage: .done, fraction: 1, now: Date())
            #expect(next?.seq == 3)
        }
        #expect(try cluster.psql("SELECT finished_by FROM bookscan_jobs WHERE id = '\(running)'").hasPrefix("old-instance"))
        #expect(try cluster.psql("SELECT count(*) FROM bookscan_jobs WHERE finished_by IS NULL").hasPrefix("1"))
    }

    /// Runs `body` with a pool on `url` (its `run()` going meanwhile).
    func withPostgresClient(_ url: DatabaseURL, _ body: (PostgresClient) async throws -> Void) async throws {
        var logger = Logger(label: "test.postgres")
        logger.logLevel = .critical
        let client = PostgresClient(configuration: DatabaseConnector(url: url).clientConfiguration, backgroundLogger: logger)
        let running = Task { await client.run() }
        defer { running.cancel() }
        try await body(client)
    }

    @Test("a database migrated by a newer build is refused with one line, and nothing is changed")
    func newerSchema() async throws {
        guard let cluster = try Self.database() else { return }
        let url = try DatabaseURL(cluster.url)
        _ = try await DatabaseSchema.migrate(url)
        try cluster.psql("INSERT INTO bookscan_migrations (version, name) VALUES (\(DatabaseSchema.latestVersion + 1), 'from the future')")
        await #expect {
            _ = try await DatabaseSchema.migrate(url)
        } throws: { error in
            "\(error)".contains("newer than this build")
        }
    }

    @Test("database URLs: user, host, port, database, a Unix socket directory, PGPASSWORD; the password never in the description; bad ones refused with a reason")
    func urls() throws {
        let tcp = try DatabaseURL("postgres://scan:s%40cret@db.example:6543/books", environment: [:])
        #expect(tcp.username == "scan" && tcp.password == "s@cret" && tcp.host == "db.example" && tcp.port == 6543 && tcp.database == "books")
        #expect(!tcp.description.contains("cret"))
        let socket = try DatabaseURL("postgresql://scan@localhost/books?host=/run/pg", environment: ["PGPASSWORD": "fromenv"])
        #expect(socket.socketPath == "/run/pg/.s.PGSQL.5432" && socket.password == "fromenv")
        for bad in ["mysql://u@h/db", "postgres://h/db", "postgres://u@h", "not a url"] {
            #expect(throws: DatabaseURL.Invalid.self, "\(bad)") { try DatabaseURL(bad, environment: [:]) }
        }
    }
}
