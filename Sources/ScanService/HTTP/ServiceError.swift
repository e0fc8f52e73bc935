public import Hummingbird
public import HTTPTypes
import NIOCore
public import ScanProtocol

/// An error the service answers with: an HTTP status plus the protocol's JSON error body.
public struct ServiceError: HTTPResponseError, Sendable {
    public let status: HTTPResponse.Status
    public let body: ErrorBody
    public let headers: HTTPFields

    public init(_ status: HTTPResponse.Status, _ code: ErrorCode, _ message: String, retryable: Bool = false, headers: HTTPFields = [:]) {
        self.status = status
        self.body = ErrorBody(code: code, message: message, retryable: retryable)
        self.headers = headers
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json"
        let data = try WireCoding.encode(ErrorResponse(error: body))
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func badJobId(_ text: String) -> ServiceError {
        .init(.badRequest, .badJobId, "job id must be a UUID, got '\(text.prefix(64))'")
    }
    static let unauthorized = ServiceError(
        .unauthorized, .unauthorized, "missing or invalid bearer token", headers: [.wwwAuthenticate: "Bearer"])
    static func notFound(_ jobId: String) -> ServiceError {
        .init(.notFound, .notFound, "no job \(jobId.prefix(64)) (unknown or expired)")
    }
}
