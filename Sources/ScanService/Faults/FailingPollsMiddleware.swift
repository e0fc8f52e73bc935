import Foundation
import Hummingbird
import ScanProtocol
import Synchronization

/// Test seam (`FaultSeams.failEveryNthPoll`): every Nth status poll (`GET` or `HEAD` of the scan
/// route, `Routes.match`) answered with 500. Runs after the token check; a job id that is no UUID goes
/// on to the route (400) uncounted.
final class FailingPollsMiddleware<Context: RequestContext>: RouterMiddleware, Sendable {
    let every: Int
    private let polls = Atomic<Int>(0)

    init(every: Int) {
        self.every = every
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head, let match = Routes.match(path: request.uri.path), match.endpoint == .scan,
            match.jobId.flatMap({ UUID(uuidString: String($0)) }) != nil
        else { return try await next(request, context) }
        let n = polls.add(1, ordering: .relaxed).newValue
        if n % every == 0 {
            throw ServiceError(.internalServerError, .internal, "injected fault: poll \(n) fails", retryable: true)
        }
        return try await next(request, context)
    }
}
