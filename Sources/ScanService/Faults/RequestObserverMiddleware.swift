import HTTPTypes
import Hummingbird

/// Test seam: reports every HTTP request the router serves (`FaultSeams.observeRequest`), so a
/// benchmark can count requests per job on kept-alive connections, which a proxy sees only once.
/// A refused WebSocket upgrade reaches the router as a plain GET (see `FirstRequestGate`); it is
/// reported as the upgrade it was (it still carries its `Sec-WebSocket-Key`).
struct RequestObserverMiddleware<Context: RequestContext>: RouterMiddleware {
    let observe: @Sendable (_ method: String, _ path: String, _ refusedUpgrade: Bool) -> Void

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let key = HTTPField.Name("Sec-WebSocket-Key")
        observe(request.method.rawValue, request.uri.path, key.map { request.headers[$0] != nil } ?? false)
        return try await next(request, context)
    }
}
