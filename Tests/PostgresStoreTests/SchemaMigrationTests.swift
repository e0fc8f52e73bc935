import BookscanTestSupport
import Foundation
import ScanService
import Testing

/// The PostgreSQL job store's schema on a real, throw-away cluster (never a mock): migrations from
/// an empty database, several instances migrating at once, and a database newer than the build.
/// Skipped with one line when PostgreSQL is not installed; under `CI=true` that fails the run.
@Suite("PostgreSQL schema migrations", .serialized)
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
