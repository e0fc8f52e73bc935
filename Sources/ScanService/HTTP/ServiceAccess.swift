import Foundation
import ScanProtocol

/// Who may call what: the service's bearer token (nil: everyone may call everything) applied to an
/// endpoint's `Routes.Access`. One decision for the router's groups, the 405 answer, the
/// `100 Continue` and the WebSocket upgrade, so no path spelling is judged two ways.
struct ServiceAccess: Sendable {
    private let token: BearerToken?
    /// The short-lived tickets the events routes take in place of the token (`?ticket=`).
    let tickets: EventsTickets

    init(token: String?) {
        self.token = token.map(BearerToken.init)
        tickets = EventsTickets(token: token)
    }

    /// Whether a request with these credentials may call an endpoint of `access`: the token in the header, or on
    /// the events routes a valid `ticket` or the token as `queryToken`.
    func admits(_ access: Routes.Access, authorization: String?, queryToken: String?, ticket: String? = nil) -> Bool {
        guard let token, access != .open else { return true }
        if access == .bearerOrQueryToken, authorization == nil, let ticket, tickets.isValid(ticket) { return true }
        // An empty credential never matches, whatever the service was given.
        guard let presented = BearerToken.presented(authorization: authorization, queryToken: queryToken, access: access),
            !presented.trimmingCharacters(in: .whitespaces).isEmpty
        else { return false }
        return token.matches(presented)
    }
}
