import HTTPTypes
import Hummingbird
import PostgresNIO
import ScanProtocol
import _ConnectionPoolModule

/// While the shared store's database cannot be reached, a request that needs it gets 503
/// `database_unavailable` with `Retry-After` and the usual JSON error (never a bare 500), so clients
/// retry and load balancers route around this instance; nothing else changes.
struct StoreUnavailableMiddleware<Context: RequestContext>: RouterMiddleware {
    let retryAfterSeconds: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error where DatabaseFailure.matches(error) {
            throw ServiceError(
                .serviceUnavailable, .databaseUnavailable, "the job database is unavailable; retry shortly", retryable: true,
                headers: [.retryAfter: "\(retryAfterSeconds)"])
        }
    }
}

/// Recognises the database client's errors (connection refused or lost, a server error mid-transaction) and its
/// pool's: after about a minute of failed connection attempts the pool's circuit breaker fails every request with
/// `ConnectionPoolError.connectionCreationCircuitBreakerTripped` (a request the client cancelled is no outage).
enum DatabaseFailure {
    static func matches(_ error: any Error) -> Bool {
        if let pool = error as? ConnectionPoolError { return pool != .requestCancelled }
        return error is PSQLError || error is PostgresTransactionError || error is DatabaseTimeout
    }
}
