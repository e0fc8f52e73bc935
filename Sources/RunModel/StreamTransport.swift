/// A transport that streams a job's events (the ladder's first two steps; polling is the third).
package enum StreamTransport: String, Codable, Sendable, CaseIterable {
    case websocket
    /// Server-Sent Events.
    case sse
}

/// How one streaming transport failed first in a run: the reason, the HTTP status of a refusal,
/// and whether it happened before any event or mid-scan.
package struct TransportFailure: Codable, Sendable, Equatable {
    package var reason: SocketFailureReason
    package var status: Int?
    package var phase: FallbackPhase

    package init(reason: SocketFailureReason, status: Int? = nil, phase: FallbackPhase) {
        self.reason = reason
        self.status = status
        self.phase = phase
    }
}
