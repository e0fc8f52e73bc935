import HTTPTypes
import Hummingbird

/// Counts every answered request by method, route pattern (never the raw path: job ids would make
/// a series each) and status, errors included; a refused WebSocket upgrade (it reaches the router as
/// a plain GET still carrying its `Sec-WebSocket-Key`) is also counted by the status it got.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServiceMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let upgrade = HTTPField.Name("Sec-WebSocket-Key").map { request.headers[$0] != nil } ?? false
        do {
            let response = try await next(request, context)
            record(request, context: context, status: response.status.code, upgrade: upgrade)
            return response
        } catch let error as any HTTPResponseError {
            record(request, context: context, status: error.status.code, upgrade: upgrade)
            throw error
        } catch {
            record(request, context: context, status: 500, upgrade: upgrade)
            throw error
        }
    }

    private func record(_ request: Request, context: Context, status: Int, upgrade: Bool) {
        metrics.request(method: request.method.rawValue, route: context.endpointPath.flatMap { $0 == UnmatchedRouteMiddleware<Context>.unmatched ? nil : $0 } ?? "unmatched", status: status)
        if upgrade { metrics.upgradeRefused(status: status) }
    }
}
