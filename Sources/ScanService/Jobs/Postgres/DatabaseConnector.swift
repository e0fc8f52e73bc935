import BookscanBase
package import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// Connections to the job store's database: the pool configuration for `PostgresClient` and single
/// connections (migrations, the LISTEN connection), both from one `DatabaseURL` (TLS by its
/// `sslmode`), the pool sized and its sessions' timeouts set by `DatabaseSettings`.
struct DatabaseConnector: Sendable {
    let url: DatabaseURL
    let poolSize: Int
    let statementTimeout: Duration

    init(url: DatabaseURL, poolSize: Int = DatabaseSettings.defaultPoolSize, statementTimeout: Duration = DatabaseSettings.defaultStatementTimeout) {
        self.url = url
        self.poolSize = max(1, poolSize)
        self.statementTimeout = statementTimeout
    }

    init(settings: DatabaseSettings) {
        self.init(url: settings.url, poolSize: settings.poolSize, statementTimeout: settings.statementTimeout)
    }

    /// The pool's configuration. Every session has `statement_timeout` and
    /// `idle_in_transaction_session_timeout`: work a caller stopped waiting for (`withDatabaseDeadline`)
    /// is ended by the server, and its connection and row locks come back.
    var clientConfiguration: PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socket = url.socketPath {
            configuration = PostgresClient.Configuration(unixSocketPath: socket, username: url.username, password: url.password, database: url.database)
        } else {
            let tls: PostgresClient.Configuration.TLS =
                switch tlsConfiguration {
                case .none: .disable
                case .some(let (settings, true)): .require(settings)
                case .some(let (settings, false)): .prefer(settings)
                }
            configuration = PostgresClient.Configuration(
                host: url.host ?? "localhost", port: url.port, username: url.username, password: url.password, database: url.database, tls: tls)
        }
        configuration.options.maximumConnections = poolSize
        configuration.options.additionalStartupParameters = sessionParameters
        return configuration
    }

    /// `statement_timeout` and `idle_in_transaction_session_timeout`, in milliseconds.
    var sessionParameters: [(String, String)] {
        let milliseconds = "\(Int((statementTimeout.inSeconds * 1000).rounded()))"
        return [("statement_timeout", milliseconds), ("idle_in_transaction_session_timeout", milliseconds)]
    }

    /// The TLS settings of `url.tlsMode` and whether TLS is required; nil for `disable`.
    /// A `sslrootcert` file is read when a connection is made (a bad one fails every connection
    /// with its reason; `serve` checks it is readable before it starts).
    var tlsConfiguration: (TLSConfiguration, required: Bool)? {
        var tls = TLSConfiguration.makeClientConfiguration()
        let roots = url.rootCertificatePath
        if let roots { tls.trustRoots = .file(roots) }
        switch url.tlsMode {
        case .disable: return nil
        case .prefer:
            tls.certificateVerification = .none
            return (tls, false)
        case .require:
            // As libpq: with a root certificate given, `require` checks the chain like `verify-ca`.
            tls.certificateVerification = roots == nil ? .none : .noHostnameVerification
            return (tls, true)
        case .verifyCA:
            tls.certificateVerification = .noHostnameVerification
            return (tls, true)
        case .verifyFull:
            tls.certificateVerification = .fullVerification
            return (tls, true)
        }
    }

    /// One connection of its own; the caller closes it.
    func connect(logger: Logger) async throws -> PostgresConnection {
        var configuration: PostgresConnection.Configuration
        if let socket = url.socketPath {
            configuration = .init(unixSocketPath: socket, username: url.username, password: url.password, database: url.database)
        } else {
            let tls: PostgresConnection.Configuration.TLS =
                switch tlsConfiguration {
                case .none: .disable
                case .some(let (settings, true)): .require(try NIOSSLContext(configuration: settings))
                case .some(let (settings, false)): .prefer(try NIOSSLContext(configuration: settings))
                }
            configuration = .init(
                host: url.host ?? "localhost", port: url.port, username: url.username, password: url.password, database: url.database, tls: tls)
        }
        return try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: configuration, id: 1, logger: logger)
    }
}

/// Schema management for operators and tests: applies the migrations (`serve --migrate-only`).
package enum DatabaseSchema {
    /// Connects to `url`, applies every missing migration (up to `version`, the latest by default)
    /// under the advisory lock, and returns the versions this call applied (empty when current).
    package static func migrate(
        _ url: DatabaseURL, upTo version: Int? = nil, logger: Logger = Logger(label: "bookscan.database")
    ) async throws -> [Int] {
        let connection = try await DatabaseConnector(url: url).connect(logger: logger)
        do {
            let applied = try await SchemaMigrations.apply(on: connection, upTo: version ?? SchemaMigrations.latest, logger: logger)
            try await connection.close()
            return applied
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// The newest schema version this build knows.
    package static var latestVersion: Int { SchemaMigrations.latest }
}

extension PostgresConnection {
    /// Runs a statement whose rows, if any, are not needed.
    func execute(_ query: PostgresQuery, logger: Logger) async throws {
        _ = try await self.query(query, logger: logger).collect()
    }
}

/// Runs database work, or throws `DatabaseTimeout` after `deadline`: a request to a pool whose
/// database is away (or a transaction on a connection that died under it) would otherwise wait forever.
/// The work runs in a task of its own that is cancelled, not awaited, once the deadline passes (a task
/// group would wait for a child that ignores cancellation).
func withDatabaseDeadline<T: Sendable>(_ deadline: Duration, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    let outcome = NIOLockedValueBox<CheckedContinuation<T, any Error>?>(nil)
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        outcome.withLockedValue { $0 = continuation }
        let worker = Task {
            let result: Result<T, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            outcome.withLockedValue { pending in
                pending?.resume(with: result)
                pending = nil
            }
        }
        Task {
            try? await Task.sleep(for: deadline)
            let timedOut = outcome.withLockedValue { pending -> Bool in
                guard let waiting = pending else { return false }
                waiting.resume(throwing: DatabaseTimeout())
                pending = nil
                return true
            }
            if timedOut { worker.cancel() }
        }
    }
}

/// The database did not answer in time (it is away, or the pool has no connection).
struct DatabaseTimeout: Error {}
