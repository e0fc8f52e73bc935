import Foundation
import HTTPTypes
import Hummingbird
import ScanProtocol

/// Test seam (`FaultSeams.refuseUpgradeStatus`): the events routes (one job's and the multiplexed
/// one, `Routes.match`) answered with the injected status instead of a stream or the reason for no
/// upgrade; `FaultyEventUpgrades` refuses their upgrades, which then arrive here as plain requests.
/// Runs after the token check; a request the route answers 400 (a job id that is no UUID, a `jobs=`
/// list that does not parse) goes on to it.
struct RefusedEventsMiddleware<Context: RequestContext>: RouterMiddleware {
    let status: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get || request.method == .head, refuses(request) else { return try await next(request, context) }
        let refused = EventStreamWire.accepts(request.headers[.accept]) ? "events" : "upgrade"
        throw ServiceError(
            HTTPResponse.Status(code: status), .internal, "injected fault: \(refused) refused with \(status)", retryable: true,
            headers: status == 503 ? [.retryAfter: "1"] : [:])
    }

    private func refuses(_ request: Request) -> Bool {
        guard let match = Routes.match(path: request.uri.path) else { return false }
        switch match.endpoint {
        case .events:
            return match.jobId.flatMap { UUID(uuidString: String($0)) } != nil
        case .multiplexedEvents:
            return JobCursor.list(fromQuery: request.uri.queryParameters.get(ProtocolNames.jobsQuery) ?? "") != nil
        default:
            return false
        }
    }
}
