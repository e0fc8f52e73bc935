import BookscanBase
import Logging
import PostgresNIO

/// The PostgreSQL store's schema, as numbered migrations applied in order at start. Each runs in
/// its own transaction and is recorded in `bookscan_migrations`; a session advisory lock makes
/// instances that start at once take turns (the second finds the work done).
enum SchemaMigrations {
    /// One step of the schema.
    struct Migration: Sendable {
        let version: Int
        let name: String
        let statements: [String]
    }

    /// The advisory lock key migrations hold (an arbitrary constant: "bookscan migrations").
    static let lockKey: Int = 0x626F_6F6B_6D69_67

    static let all: [Migration] = [
        Migration(
            version: 1, name: "jobs, events, images",
            statements: [
                """
                CREATE TABLE bookscan_jobs (
                    id uuid PRIMARY KEY,
                    digest bytea NOT NULL,
                    state text NOT NULL,
                    stage text NOT NULL,
                    fraction double precision NOT NULL DEFAULT 0,
                    latest_seq bigint NOT NULL,
                    image_bytes bigint NOT NULL,
                    created_at timestamptz NOT NULL,
                    updated_at timestamptz NOT NULL,
                    started_at timestamptz,
                    finished_at timestamptz,
                    lease_owner text,
                    lease_expires_at timestamptz,
                    attempts bigint NOT NULL DEFAULT 0,
                    cancel_requested boolean NOT NULL DEFAULT false,
                    result text,
                    error text
                )
                """,
                "CREATE INDEX bookscan_jobs_claimable ON bookscan_jobs (created_at) WHERE state IN ('queued', 'running')",
                "CREATE INDEX bookscan_jobs_finished ON bookscan_jobs (finished_at) WHERE finished_at IS NOT NULL",
                """
                CREATE TABLE bookscan_events (
                    job_id uuid NOT NULL REFERENCES bookscan_jobs (id) ON DELETE CASCADE,
                    seq bigint NOT NULL,
                    payload text NOT NULL,
                    PRIMARY KEY (job_id, seq)
                )
                """,
                """
                CREATE TABLE bookscan_images (
                    job_id uuid PRIMARY KEY REFERENCES bookscan_jobs (id) ON DELETE CASCADE,
                    bytes bytea NOT NULL
                )
                """,
            ]),
        Migration(
            version: 2, name: "typed states checked by the database; the instance that finished a job",
            statements: [
                """
                ALTER TABLE bookscan_jobs
                    ADD CONSTRAINT bookscan_jobs_state_known CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'canceled')),
                    ADD CONSTRAINT bookscan_jobs_fraction_range CHECK (fraction >= 0 AND fraction <= 1),
                    ADD COLUMN finished_by text
                """,
                "ALTER TABLE bookscan_events ADD CONSTRAINT bookscan_events_seq_positive CHECK (seq > 0)",
            ]),
        Migration(
            version: 3, name: "writes fenced by attempt: a lease token per claim; the attempt that wrote each event",
            statements: [
                "ALTER TABLE bookscan_jobs ADD COLUMN lease_token uuid",
                "ALTER TABLE bookscan_events ADD COLUMN attempt bigint",
            ]),
    ]

    /// The newest schema version this build knows.
    static var latest: Int { all.last?.version ?? 0 }

    /// Applies every migration the database lacks (up to `target`, the latest by default: tests stop
    /// at an earlier version to upgrade from it), under the advisory lock; returns the versions applied.
    static func apply(on connection: PostgresConnection, upTo target: Int = latest, logger: Logger) async throws -> [Int] {
        try await connection.execute("SELECT pg_advisory_lock(\(lockKey))", logger: logger)
        do {
            try await connection.execute(
                """
                CREATE TABLE IF NOT EXISTS bookscan_migrations (
                    version bigint PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                """, logger: logger
            )
            var applied: Set<Int> = []
            for try await version in try await connection.query("SELECT version FROM bookscan_migrations", logger: logger).decode(Int.self) {
                applied.insert(version)
            }
            if let newest = applied.max(), newest > latest {
                throw MigrationError(description: "the database schema is version \(newest), newer than this build's \(latest); upgrade bookscan")
            }
            var done: [Int] = []
            for migration in all where !applied.contains(migration.version) && migration.version <= target {
                try await connection.execute("BEGIN", logger: logger)
                do {
                    for statement in migration.statements {
                        try await connection.execute(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.execute(
                        "INSERT INTO bookscan_migrations (version, name) VALUES (\(migration.version), \(migration.name))", logger: logger
                    )
                    try await connection.execute("COMMIT", logger: logger)
                } catch {
                    _ = try? await connection.execute("ROLLBACK", logger: logger)
                    throw error
                }
                logger.info("database migrated", metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
                done.append(migration.version)
            }
            try await connection.execute("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
            return done
        } catch {
            _ = try? await connection.execute("SELECT pg_advisory_unlock(\(lockKey))", logger: logger)
            throw error
        }
    }

    /// A schema the build cannot use.
    struct MigrationError: Error, CustomStringConvertible {
        let description: String
    }
}
