import Hummingbird

/// Test seam: delays every response (`FaultSeams.responseDelay`, a slow server).
struct ResponseDelayMiddleware<Context: RequestContext>: RouterMiddleware {
    let delay: Duration

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await Task.sleep(for: delay)
        return try await next(request, context)
    }
}
