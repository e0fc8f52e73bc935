import Hummingbird
import HTTPTypes
import ScanProtocol

/// Requires `Authorization: Bearer <token>` on every `/v1` route and `/metrics`; the events route may carry the
/// token as `?access_token=` instead (browsers cannot set headers on WebSockets). Tokens are
/// compared in constant time, as SHA-256 digests, and never logged.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    private let token: BearerToken

    init(token: String) {
        self.token = BearerToken(token)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path.hasPrefix(Routes.versionPrefix) || request.uri.path == Routes.metrics else { return try await next(request, context) }
        let presented = BearerToken.presented(
            authorization: request.headers[.authorization], path: request.uri.path,
            queryToken: request.uri.queryParameters.get(ProtocolNames.accessTokenQuery))
        guard let presented, token.matches(presented) else { throw ServiceError.unauthorized }
        return try await next(request, context)
    }
}
