import BookscanTestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

@testable import ScanService

/// TLS to the job store's database, by the URL's `sslmode` (libpq's values) and `sslrootcert`, on a
/// real throw-away cluster with `ssl=on` and a CA made for the test.
@Suite("PostgreSQL over TLS", .serialized, .enabled(if: PostgresCluster.runnable, "PostgreSQL is not installed (scripts/bootstrap installs it)"))
struct DatabaseTLSTests {
    @Test("sslmode: libpq's five values are taken, anything else is refused with a one-line reason; TLS over a Unix socket is refused")
    func modes() throws {
        for mode in DatabaseTLSMode.allCases {
            let url = try DatabaseURL("postgres://u@db.example/books?sslmode=\(mode.rawValue)", environment: [:])
            #expect(url.tlsMode == mode)
        }
        #expect(try DatabaseURL("postgres://u@db.example/books", environment: [:]).tlsMode == .prefer)
        let pinned = try DatabaseURL("postgres://u@db.example/books?sslmode=verify-full&sslrootcert=/etc/ca.pem", environment: [:])
        #expect(pinned.rootCertificatePath == "/etc/ca.pem" && pinned.description.contains("sslmode=verify-full"))
        for bad in ["allow", "verify_full", "true", "REQUIRE", ""] {
            #expect(throws: DatabaseURL.Invalid.self, "\(bad)") { try DatabaseURL("postgres://u@db.example/books?sslmode=\(bad)", environment: [:]) }
        }
        #expect(throws: DatabaseURL.Invalid.self) { try DatabaseURL("postgres://u@localhost/books?host=/run/pg&sslmode=require", environment: [:]) }
    }

    /// Whether the session `url` opens (one connection, and one through the pool) is encrypted.
    func encrypted(_ text: String) async throws -> (single: Bool, pooled: Bool) {
        let url = try DatabaseURL(text, environment: [:])
        let logger = Logger.quiet("test.tls")
        let question: PostgresQuery = "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()"
        let connection = try await DatabaseConnector(url: url).connect(logger: logger)
        let single = try await connection.query(question, logger: logger).decode(Bool.self).first { _ in true } ?? false
        try await connection.close()
        let client = PostgresClient(configuration: DatabaseConnector(url: url).clientConfiguration, backgroundLogger: logger)
        let pool = Task { await client.run() }
        defer { pool.cancel() }
        let pooled = try await withDatabaseDeadline(.seconds(10)) {
            try await client.query(question, logger: logger).decode(Bool.self).first { _ in true } ?? false
        }
        return (single, pooled)
    }

    @Test("a cluster with ssl=on: verify-full and verify-ca with its CA, and require, connect encrypted; disable does not; verify-full with another CA is refused")
    func realTLS() async throws {
        let certificates = try DatabaseCertificates.make()
        defer { certificates.remove() }
        let tls = PostgresCluster.ServerTLS(certificate: certificates.serverCertificate, key: certificates.serverKey)
        var started: PostgresCluster?
        for _ in 0..<5 where started == nil { started = try? PostgresCluster(port: Int.random(in: 20_000...45_000), tls: tls) }
        let cluster = try #require(started, "no TLS cluster started")
        defer { cluster.stop() }
        let base = "postgres://\(PostgresCluster.user)@localhost:\(cluster.port)/\(PostgresCluster.database)"
        for query in ["sslmode=verify-full&sslrootcert=\(certificates.caCertificate)", "sslmode=verify-ca&sslrootcert=\(certificates.caCertificate)", "sslmode=require"] {
            let answer = try await encrypted(base + "?" + query)
            #expect(answer.single && answer.pooled, "\(query)")
        }
        let plain = try await encrypted(base + "?sslmode=disable")
        #expect(!plain.single && !plain.pooled)
        await #expect(throws: (any Error).self) {
            _ = try await encrypted(base + "?sslmode=verify-full&sslrootcert=\(certificates.otherCACertificate)")
        }
        // The store's migrations go over the same TLS connection.
        let url = try DatabaseURL(base + "?sslmode=verify-full&sslrootcert=\(certificates.caCertificate)", environment: [:])
        #expect(try await DatabaseSchema.migrate(url) == Array(1...DatabaseSchema.latestVersion))
    }
}
