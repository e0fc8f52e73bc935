import BookscanBase
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ScanProtocol

/// One access-log line per request (`notice`: method, route pattern, path without its query, so an
/// `?access_token=` never reaches a log, status, duration, job id) under a request id taken from
/// `X-Request-ID` (when it is a short printable token) or made, and returned in the response's
/// `X-Request-ID`, errors included.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    /// The request id header.
    static var requestIDHeader: HTTPField.Name? { HTTPField.Name("X-Request-ID") }

    /// A client's id when it is 1…128 characters of letters, digits and `-_.:`; else a new UUID.
    static func requestID(from presented: String?) -> String {
        if let presented, (1...128).contains(presented.count),
            presented.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.:".unicodeScalars.contains($0)) })
        {
            return presented
        }
        return UUID().uuidString.lowercased()
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let id = Self.requestID(from: Self.requestIDHeader.flatMap { request.headers[$0] })
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        } catch {
            // Anything else would leave as a bare 500 with an empty body and no log line: the usual JSON error,
            // logged like every other answer (the error's type names what failed; its text may hold a query).
            logger.error("unexpected error", metadata: ["request_id": .string(id), "error_type": .string(String(reflecting: type(of: error)))])
            response = try ServiceError(.internalServerError, .internal, "internal error; the service log has its request id").response(
                from: request, context: context)
        }
        if let header = Self.requestIDHeader { response.headers[header] = id }
        let path = request.uri.path
        var metadata: Logger.Metadata = [
            "request_id": .string(id), "method": .string(request.method.rawValue), "path": .string(String(path.prefix(200))),
            "route": .string(context.endpointPath.flatMap { $0 == UnmatchedRouteMiddleware<Context>.unmatched ? nil : $0 } ?? "unmatched"),
            "status": .stringConvertible(response.status.code),
            "duration_ms": .stringConvertible(((ContinuousClock.now - started).inMilliseconds * 1000).rounded() / 1000),
        ]
        if let job = Routes.jobIdText(inPath: path) { metadata["job_id"] = .string(job.lowercased()) }
        logger.notice("request", metadata: metadata)
        return response
    }
}
