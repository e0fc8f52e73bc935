import BookscanTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import ScanProtocol
import Testing
import _ConnectionPoolModule

@testable import ScanService

/// What an operator and a client see when the database fails: `serve` says what failed in one line (not
/// PSQLError's generic text), and a request during a long outage gets 503 `database_unavailable` with
/// `Retry-After`, never a bare 500, and is in the access log.
@Suite("Database errors in words", .enabled(if: PostgresCluster.runnable, "PostgreSQL is not installed (scripts/bootstrap installs it)"))
struct DatabaseErrorTextTests {
    @Test("sslmode=require against a server without TLS says so, naming the server and the mode")
    func requireWithoutTLS() async throws {
        var started: PostgresCluster?
        for _ in 0..<5 where started == nil { started = try? PostgresCluster(port: Int.random(in: 20_000...45_000), tcp: true) }
        let cluster = try #require(started, "no cluster started")
        defer { cluster.stop() }
        let url = try DatabaseURL("postgres://\(PostgresCluster.user)@localhost:\(cluster.port)/\(PostgresCluster.database)?sslmode=require", environment: [:])
        do {
            _ = try await DatabaseSchema.migrate(url)
            Issue.record("sslmode=require connected to a server without TLS")
        } catch {
            let text = try #require(DatabaseErrorText.describe(error, url: url))
            #expect(text.contains("does not offer TLS") && text.contains("sslmode=require") && text.contains(":\(cluster.port)"), "\(text) — \(String(reflecting: error))")
            #expect(!text.contains("Generic description"))
        }
        // A server that refuses the database by name says the server's own message.
        let missing = try DatabaseURL(cluster.url(database: "no_such_database"), environment: [:])
        do {
            _ = try await DatabaseSchema.migrate(missing)
            Issue.record("connected to a database that does not exist")
        } catch {
            let text = try #require(DatabaseErrorText.describe(error, url: missing))
            #expect(text.hasPrefix("the server refused: ") && text.contains("no_such_database") && text.contains("SQLSTATE"), "\(text)")
        }
        #expect(DatabaseErrorText.describe(CancellationError(), url: url) == nil)
    }

    /// A router with the service's access log and store middleware over a route that throws `error`.
    static func router(throwing error: any Error & Sendable, log: LogLines) -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: AccessLogMiddleware(logger: Logger(label: "test.access") { _ in log }))
        router.add(middleware: StoreUnavailableMiddleware(retryAfterSeconds: 2))
        router.get("/v1/limits") { _, _ -> HTTPResponse.Status in throw error }
        return router
    }

    @Test("the pool's circuit breaker (an outage over a minute) is 503 database_unavailable with Retry-After, and logged")
    func circuitBreaker() async throws {
        #expect(DatabaseFailure.matches(ConnectionPoolError.connectionCreationCircuitBreakerTripped))
        #expect(DatabaseFailure.matches(ConnectionPoolError.poolShutdown))
        #expect(!DatabaseFailure.matches(ConnectionPoolError.requestCancelled))
        let log = LogLines()
        try await Application(router: Self.router(throwing: ConnectionPoolError.connectionCreationCircuitBreakerTripped, log: log)).test(.router) { client in
            try await client.execute(uri: "/v1/limits", method: .get) { response in
                #expect(response.status == .serviceUnavailable && response.headers[.retryAfter] == "2")
                let body = try WireCoding.decoder().decode(ErrorResponse.self, from: Data(response.body.readableBytesView))
                #expect(body.error.code == .databaseUnavailable && body.error.retryable)
            }
        }
        #expect(log.lines.contains { $0.message == "request" && $0.metadata["status"] == "503" }, "\(log.lines)")
    }

    @Test("any other error is the usual JSON 500, never an empty body, and is in the access log")
    func unexpectedError() async throws {
        struct Unforeseen: Error {}
        let log = LogLines()
        try await Application(router: Self.router(throwing: Unforeseen(), log: log)).test(.router) { client in
            try await client.execute(uri: "/v1/limits", method: .get) { response in
                #expect(response.status == .internalServerError)
                let body = try WireCoding.decoder().decode(ErrorResponse.self, from: Data(response.body.readableBytesView))
                #expect(body.error.code == .internal)
            }
        }
        #expect(log.lines.contains { $0.message == "request" && $0.metadata["status"] == "500" })
        #expect(log.lines.contains { $0.message == "unexpected error" && $0.metadata["error_type"]?.contains("Unforeseen") == true })
    }
}

/// A log handler that keeps each line's message and metadata (as text).
final class LogLines: LogHandler, @unchecked Sendable {
    struct Line: Sendable {
        let message: String
        let metadata: [String: String]
    }
    private let lock = NSLock()
    private var kept: [Line] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    var lines: [Line] { lock.withLock { kept } }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = (event.metadata ?? [:]).mapValues { "\($0)" }
        lock.withLock { kept.append(Line(message: "\(event.message)", metadata: fields)) }
    }
}
