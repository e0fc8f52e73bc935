/// What the fault proxy does to one connection, chosen from its first request.
package enum ConnectionFault: Sendable, Equatable {
    /// Forward both ways untouched.
    case passThrough
    /// Answer at once with this HTTP status and close; the server never sees the request.
    case respond(status: Int)
    /// Wait this long, then answer with this HTTP status and close (a slow failing proxy).
    case respondAfter(Duration, status: Int)
    /// Once the server accepts the upgrade (101), forward the response head, then swallow
    /// everything both ways while keeping the TCP connection open (a proxy that passes no frames).
    /// A refused upgrade passes through untouched.
    case silentAfterResponseHead
    /// After an accepted upgrade, forward this many server event frames, then close the
    /// connection (FIN, no WebSocket close frame).
    case dropAfterEvents(Int)
    /// After an accepted upgrade, forward this many server event frames, then reset the connection
    /// (SO_LINGER 0 and close: the peers see a TCP RST).
    case resetAfterEvents(Int)
    /// After an accepted upgrade, forward this many server event frames, then swallow everything
    /// both ways while keeping the connection open (a middlebox that stops passing frames mid-scan).
    case swallowAfterEvents(Int)
    /// After an accepted upgrade, forward this many server event frames, then hold everything from
    /// the server this long and release it at once (frames land in a burst just as a timer is due).
    case holdAfterEvents(Int, Duration)
    /// Forward the request at once; hold the server's whole response this long (a request answered late).
    case delayResponse(Duration)
    /// Forward this many request bytes, then reset the connection with a TCP RST (an upload cut mid-body).
    case resetAfterRequestBytes(Int)
    /// Hold every chunk this long, both ways (latency).
    case delay(Duration)
    /// Latency plus a bandwidth limit in bytes per second, each way (a slow link).
    case shaped(latency: Duration, bytesPerSecond: Int)
    /// Everything from the server, response head included, passed on at this many bytes per second in
    /// small pieces, the request untouched: a middlebox that trickles an event stream or a socket's
    /// frames. What the server sends faster queues in the proxy, so the client falls ever further behind.
    case trickle(bytesPerSecond: Int)
    /// Forward the request, then never answer (a server slow to accept).
    case stall
    /// A proxy that refuses WebSocket upgrades: 403 to an upgrade request, anything else passes
    /// untouched (event streams and polls included).
    case blockUpgrade
    /// A buffering proxy: hold each response until it is complete (its Content-Length, the last
    /// chunk of a chunked body, or the server closing), then pass it at once. An event stream
    /// arrives only when its job has ended.
    case buffer

    /// Whether the fault only acts on a connection whose upgrade the server accepted.
    var actsAfterUpgrade: Bool {
        switch self {
        case .silentAfterResponseHead, .dropAfterEvents, .resetAfterEvents, .swallowAfterEvents, .holdAfterEvents: true
        default: false
        }
    }
}
