import HTTPTypes
import Hummingbird
import ScanProtocol

/// Answers what no route matched in the JSON error shape every other error has: a route path asked
/// with a method it does not have gets 405 with `Allow`, any other path 404 `not_found` (the router
/// alone answers both with an empty 404).
struct UnmatchedRouteMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The endpoint path Hummingbird's router gives a request no route matched.
    static var unmatched: String { "NotFound" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && (context.endpointPath ?? Self.unmatched) == Self.unmatched {
            let path = request.uri.path
            if let methods = Routes.allowedMethods(forPath: path) {
                throw ServiceError(
                    .methodNotAllowed, .badRequest, "\(request.method.rawValue) is not a method of \(path.prefix(120)); use \(methods.joined(separator: ", "))",
                    headers: [.allow: methods.joined(separator: ", ")])
            }
            throw ServiceError(.notFound, .notFound, "no route \(path.prefix(120))")
        }
    }
}
