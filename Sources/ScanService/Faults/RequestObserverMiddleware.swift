import Hummingbird

/// Test seam: reports every HTTP request the router serves (`FaultSeams.observeRequest`), so a
/// benchmark can count requests per job on kept-alive connections, which a proxy sees only once.
struct RequestObserverMiddleware<Context: RequestContext>: RouterMiddleware {
    let observe: @Sendable (_ method: String, _ path: String) -> Void

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        observe(request.method.rawValue, request.uri.path)
        return try await next(request, context)
    }
}
