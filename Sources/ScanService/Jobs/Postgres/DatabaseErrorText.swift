import PostgresNIO
import _ConnectionPoolModule

/// What failed when the job store's database could not be used, in one line an operator can act on. PSQLError's
/// own description is a generic line on purpose (it may reach end users); this reads its code and the server's
/// message instead, for `serve`'s own log.
package enum DatabaseErrorText {
    /// The line for `error` met while using `url`; nil when `error` is not the database client's.
    package static func describe(_ error: any Error, url: DatabaseURL) -> String? {
        if let pool = error as? ConnectionPoolError {
            return pool == .connectionCreationCircuitBreakerTripped
                ? "no connection could be made for a minute (the pool's circuit breaker tripped); is the server up at \(url.endpoint)?"
                : "the connection pool stopped (\(pool))"
        }
        if error is DatabaseTimeout { return "the server at \(url.endpoint) did not answer in time" }
        guard let psql = error as? PSQLError else { return nil }
        let underlying = psql.underlying.map { " (\(String(describing: $0).prefix(200)))" } ?? ""
        switch psql.code {
        case .sslUnsupported:
            return "the server at \(url.endpoint) does not offer TLS, and sslmode=\(url.tlsMode.rawValue) requires it: turn ssl on at the server, or ask for sslmode=prefer or disable"
        case .failedToAddSSLHandler, .receivedUnencryptedDataAfterSSLRequest:
            return "TLS could not be set up with the server at \(url.endpoint)\(underlying)"
        case .connectionError:
            return "could not connect to \(url.endpoint)\(underlying)"
        case .authMechanismRequiresPassword:
            return "the server asks for a password and the URL gives none (put it in the URL or set PGPASSWORD)"
        case .unsupportedAuthMechanism, .saslError:
            return "authentication with the server failed: it asks for a method the client cannot do\(underlying)"
        case .server:
            let message = psql.serverInfo?[.message] ?? "an error"
            let state = psql.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return "the server refused: \(message.prefix(300))\(state)"
        case .serverClosedConnection, .uncleanShutdown:
            return "the server at \(url.endpoint) closed the connection\(underlying)"
        default:
            return "the database client failed (\(psql.code))\(underlying)"
        }
    }
}
