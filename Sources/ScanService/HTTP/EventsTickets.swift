import Crypto
import Foundation
import ScanProtocol

/// Short-lived credentials for the events routes (`POST /v1/tickets`, then `?ticket=`), so the web page never puts
/// the long-lived token in a WebSocket or event-stream URL (where a console, a proxy log or a history shows it). A
/// ticket is its expiry and an HMAC of it under a key derived from the service's token: nothing is stored, and every
/// instance sharing the token (and a PostgreSQL store) accepts the others' tickets.
struct EventsTickets: Sendable {
    /// Seconds a ticket is good for: long enough for the page to open its socket, short enough to be worthless later.
    static let lifetimeSeconds = 60

    /// The HMAC key's bytes (`SymmetricKey` is not `Sendable`).
    private let keyBytes: [UInt8]

    /// Tickets for a service with `token`; without one (nothing to protect) under a key of this process.
    init(token: String?) {
        let secret = token ?? UUID().uuidString
        keyBytes = Array(SHA256.hash(data: Array("bookscan events ticket\u{0}".utf8) + Array(secret.utf8)))
    }

    /// A ticket good for `lifetimeSeconds` from `now`.
    func issue(now: Date = Date()) -> EventsTicket {
        let expiry = Int(now.timeIntervalSince1970) + Self.lifetimeSeconds
        return EventsTicket(ticket: "\(expiry).\(mac(expiry))", expiresInSeconds: Self.lifetimeSeconds)
    }

    /// Whether `ticket` is one of ours and not expired at `now` (nor dated further ahead than a ticket can be).
    func isValid(_ ticket: String, now: Date = Date()) -> Bool {
        let parts = ticket.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, parts[0].count <= 12, let expiry = Int(parts[0]) else { return false }
        let seconds = Int(now.timeIntervalSince1970)
        guard expiry >= seconds, expiry <= seconds + Self.lifetimeSeconds + 5 else { return false }
        let expected = Array(mac(expiry).utf8), presented = Array(parts[1].utf8)
        guard expected.count == presented.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(expected, presented) { difference |= a ^ b }
        return difference == 0
    }

    private func mac(_ expiry: Int) -> String {
        HMAC<SHA256>.authenticationCode(for: Array("\(expiry)".utf8), using: SymmetricKey(data: keyBytes)).map { String(format: "%02x", $0) }.joined()
    }
}
