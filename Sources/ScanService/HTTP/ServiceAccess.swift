import Foundation
import ScanProtocol

/// Who may call what: the service's bearer token (nil: everyone may call everything) applied to an
/// endpoint's `Routes.Access`. One decision for the router's groups, the 405 answer, the
/// `100 Continue` and the WebSocket upgrade, so no path spelling is judged two ways.
struct ServiceAccess: Sendable {
    private let token: BearerToken?

    init(token: String?) {
        self.token = token.map(BearerToken.init)
    }

    /// Whether a request with these credentials may call an endpoint of `access`.
    func admits(_ access: Routes.Access, authorization: String?, queryToken: String?) -> Bool {
        guard let token, access != .open else { return true }
        // An empty credential never matches, whatever the service was given.
        guard let presented = BearerToken.presented(authorization: authorization, queryToken: queryToken, access: access),
            !presented.trimmingCharacters(in: .whitespaces).isEmpty
        else { return false }
        return token.matches(presented)
    }
}
