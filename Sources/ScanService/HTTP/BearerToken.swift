import Crypto
import ScanProtocol

/// The service's bearer token, kept only as a SHA-256 digest and compared in constant time.
struct BearerToken: Sendable {
    private let expected: [UInt8]

    init(_ token: String) {
        self.expected = Array(SHA256.hash(data: Array(token.utf8)))
    }

    func matches(_ token: String) -> Bool {
        let digest = Array(SHA256.hash(data: Array(token.utf8)))
        var difference: UInt8 = 0
        for (a, b) in zip(digest, expected) { difference |= a ^ b }
        return difference == 0
    }

    /// The token a request presents: `Authorization: Bearer …`, else `queryToken` (`?access_token=`) when the
    /// endpoint takes one (`Routes.Access.bearerOrQueryToken`). An Authorization header of another scheme presents none.
    static func presented(authorization: String?, queryToken: String?, access: Routes.Access) -> String? {
        if let header = authorization {
            let prefix = "Bearer "
            guard header.count > prefix.count, header.lowercased().hasPrefix(prefix.lowercased()) else { return nil }
            return String(header.dropFirst(prefix.count))
        }
        return access == .bearerOrQueryToken ? queryToken : nil
    }
}
