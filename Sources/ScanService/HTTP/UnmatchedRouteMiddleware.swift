import HTTPTypes
import Hummingbird
import ScanProtocol

/// Answers what no route matched in the JSON error shape every other error has: a route path asked
/// with a method it does not have gets 405 with `Allow` (401 instead for a guarded route asked
/// without its token: its methods are not told to strangers), any other path 404 `not_found` (the
/// router alone answers both with an empty 404). The path is matched as the router matches it.
struct UnmatchedRouteMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The endpoint path Hummingbird's router gives a request no route matched.
    static var unmatched: String { "NotFound" }

    let access: ServiceAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && (context.endpointPath ?? Self.unmatched) == Self.unmatched {
            let path = request.uri.path
            if let endpoint = Routes.match(path: path)?.endpoint {
                let queryToken = request.uri.queryParameters.get(ProtocolNames.accessTokenQuery)
                guard access.admits(
                    endpoint.access, authorization: request.headers[.authorization], queryToken: queryToken,
                    ticket: request.uri.queryParameters.get(ProtocolNames.ticketQuery))
                else {
                    throw ServiceError.unauthorized
                }
                let methods = endpoint.methods.joined(separator: ", ")
                throw ServiceError(
                    .methodNotAllowed, .badRequest, "\(request.method.rawValue) is not a method of \(path.prefix(120)); use \(methods)",
                    headers: [.allow: methods])
            }
            throw ServiceError(.notFound, .notFound, "no route \(path.prefix(120))")
        }
    }
}
