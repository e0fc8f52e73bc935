import Hummingbird
import HTTPTypes
import ScanProtocol

/// Requires the bearer token on every route of the router group it is added to: the group of one
/// `Routes.Access` (the router decides which routes a request reaches; this never looks at the path).
/// On the events routes (`.bearerOrQueryToken`) the token may come as `?access_token=` instead
/// (browsers cannot set headers on WebSockets). Tokens are compared in constant time, as SHA-256
/// digests, and never logged.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: ServiceAccess
    let required: Routes.Access

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let queryToken = request.uri.queryParameters.get(ProtocolNames.accessTokenQuery)
        guard access.admits(
            required, authorization: request.headers[.authorization], queryToken: queryToken,
            ticket: request.uri.queryParameters.get(ProtocolNames.ticketQuery))
        else {
            throw ServiceError.unauthorized
        }
        return try await next(request, context)
    }
}
