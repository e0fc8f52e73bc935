/// The answer of `POST /v1/tickets`: a short-lived credential for the events routes' `?ticket=`, so a browser
/// (which cannot set headers on a WebSocket or an EventSource) never puts the long-lived token in a URL.
public struct EventsTicket: Codable, Sendable, Equatable {
    /// The ticket, for `?ticket=`.
    public var ticket: String
    /// Seconds it is good for from now.
    public var expiresInSeconds: Int

    public init(ticket: String, expiresInSeconds: Int) {
        self.ticket = ticket
        self.expiresInSeconds = expiresInSeconds
    }
}
