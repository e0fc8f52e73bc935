/// Why the WebSocket (or the event stream) could not carry (part of) a job.
package enum SocketFailureReason: String, Codable, Sendable, CaseIterable {
    /// The upgrade was answered with an HTTP error status.
    case refused
    /// No open socket in time.
    case connectTimeout = "connect_timeout"
    /// Open, but no frame (event, heartbeat) for the silence timeout.
    case silent
    /// Closed or reset before the terminal event.
    case dropped
    /// A frame the protocol does not allow (undecodable message).
    case protocolError = "protocol_error"
    /// The connection could not be made at all (refused port, unreachable host).
    case network
    /// An event stream that delivered no byte in time: a proxy holds the response until it ends.
    case buffered
    /// Open and still sending, but behind: a status poll showed news it had not delivered within the
    /// lag bound (a middlebox that passes the stream a few hundred bytes a second). Not retried in the run.
    case lagging
}
