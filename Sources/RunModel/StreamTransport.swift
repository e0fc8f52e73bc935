/// A transport that streams a job's events (the ladder's first two steps; polling is the third).
public enum StreamTransport: String, Codable, Sendable, CaseIterable {
    case websocket
    /// Server-Sent Events.
    case sse
}

/// How one streaming transport failed first in a run: the reason, the HTTP status of a refusal,
/// and whether it happened before any event or mid-scan.
public struct TransportFailure: Codable, Sendable, Equatable {
    public var reason: SocketFailureReason
    public var status: Int?
    public var phase: FallbackPhase

    public init(reason: SocketFailureReason, status: Int? = nil, phase: FallbackPhase) {
        self.reason = reason
        self.status = status
        self.phase = phase
    }
}
