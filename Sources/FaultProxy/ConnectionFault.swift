/// What the fault proxy does to one connection, chosen from its first request.
public enum ConnectionFault: Sendable, Equatable {
    /// Forward both ways untouched.
    case passThrough
    /// Answer at once with this HTTP status and close; the server never sees the request.
    case respond(status: Int)
    /// Forward the request and the server's response head, then swallow everything both ways
    /// while keeping the TCP connection open (a proxy that accepts an upgrade but passes no frames).
    case silentAfterResponseHead
    /// After the upgrade, forward this many server event frames, then reset the connection.
    case dropAfterEvents(Int)
    /// Forward this many request bytes, then reset the connection (an upload cut mid-body).
    case resetAfterRequestBytes(Int)
    /// Hold every chunk this long, both ways (latency).
    case delay(Duration)
    /// Forward the request, then never answer (a server slow to accept).
    case stall
}

/// The first request of a connection, as the proxy saw it.
public struct ProxiedRequest: Sendable, Equatable {
    public var method: String
    public var path: String
    public var isUpgrade: Bool
    /// 1 for the first request of the same kind (upgrade, PUT, GET, …), 2 for the next, and so on.
    public var ordinal: Int

    /// The kind used for counting: `upgrade`, or the HTTP method.
    public var kind: String { isUpgrade ? "upgrade" : method }
}

/// Chooses a fault per connection.
public typealias FaultPlan = @Sendable (ProxiedRequest) -> ConnectionFault
