import Logging
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
    /// Connects to `url`, applies every missing migration under the advisory lock, and returns the
    /// versions this call applied (empty when the schema was current).
    package static func migrate(_ url: DatabaseURL, logger: Logger = Logger(label: "bookscan.database")) async throws -> [Int] {
        let connection = try await DatabaseConnector(url: url).connect(logger: logger)
        do {
            let applied = try await SchemaMigrations.apply(on: connection, logger: logger)
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
