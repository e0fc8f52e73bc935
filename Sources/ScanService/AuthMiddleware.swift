import Crypto
import Hummingbird
import HTTPTypes
import ScanProtocol

/// Requires `Authorization: Bearer <token>` on every `/v1` route; the events route may carry the
/// token as `?access_token=` instead (browsers cannot set headers on WebSockets). Tokens are
/// compared in constant time, as SHA-256 digests, and never logged.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    private let expected: [UInt8]

    init(token: String) {
        self.expected = Array(SHA256.hash(data: Array(token.utf8)))
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.uri.path.hasPrefix("/v1/") else { return try await next(request, context) }
        guard let presented = Self.presentedToken(request), matches(presented) else { throw ServiceError.unauthorized }
        return try await next(request, context)
    }

    private func matches(_ token: String) -> Bool {
        let digest = Array(SHA256.hash(data: Array(token.utf8)))
        var difference: UInt8 = 0
        for (a, b) in zip(digest, expected) { difference |= a ^ b }
        return difference == 0
    }

    static func presentedToken(_ request: Request) -> String? {
        if let header = request.headers[.authorization] {
            let prefix = "Bearer "
            guard header.count > prefix.count, header.lowercased().hasPrefix(prefix.lowercased()) else { return nil }
            return String(header.dropFirst(prefix.count))
        }
        if request.uri.path.hasSuffix("/events") {
            return request.uri.queryParameters.get(ProtocolNames.accessTokenQuery)
        }
        return nil
    }
}

/// Delays every response (fault injection: a slow server).
struct DelayMiddleware<Context: RequestContext>: RouterMiddleware {
    let delay: Duration

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        try await Task.sleep(for: delay)
        return try await next(request, context)
    }
}
