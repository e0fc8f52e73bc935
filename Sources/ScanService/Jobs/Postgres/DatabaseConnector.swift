import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresNIO

/// Connections to the job store's database: the pool configuration for `PostgresClient` and single
/// connections (migrations, the LISTEN connection), both from one `DatabaseURL`.
struct DatabaseConnector: Sendable {
    let url: DatabaseURL

    /// The pool's configuration (TLS off on a Unix socket, preferred over TCP).
    var clientConfiguration: PostgresClient.Configuration {
        if let socket = url.socketPath {
            return PostgresClient.Configuration(unixSocketPath: socket, username: url.username, password: url.password, database: url.database)
        }
        return PostgresClient.Configuration(
            host: url.host ?? "localhost", port: url.port, username: url.username, password: url.password, database: url.database,
            tls: .disable)
    }

    /// One connection of its own; the caller closes it.
    func connect(logger: Logger) async throws -> PostgresConnection {
        let configuration: PostgresConnection.Configuration =
            if let socket = url.socketPath {
                .init(unixSocketPath: socket, username: url.username, password: url.password, database: url.database)
            } else {
                .init(host: url.host ?? "localhost", port: url.port, username: url.username, password: url.password, database: url.database, tls: .disable)
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
