package import RunModel
/// How the run's progress was carried, exactly: the ProgressStrategy the analytics log records.
package enum ProgressStrategy: Codable, Sendable, Equatable {
    /// The WebSocket carried the job to its end with no failure.
    case websocket
    /// The WebSocket carried the job to its end after reconnecting at least once.
    case websocketReconnected
    /// Server-Sent Events carried the job to its end: after this WebSocket failure (`--strategy
    /// auto`), or forced with `--strategy sse` (nil).
    case sse(afterWebSocket: TransportFailure?)
    /// Polling delivered the end because the streaming transport `from` failed (its first failure's
    /// reason, status and phase): the WebSocket, or the event stream the WebSocket had fallen back to.
    case pollingFallback(reason: SocketFailureReason, status: Int?, phase: FallbackPhase, from: StreamTransport = .websocket)
    /// Polling was forced with `--strategy polling`.
    case polling

    /// The name used in logs and summaries.
    package var name: StrategyName {
        switch self {
        case .websocket: .websocket
        case .websocketReconnected: .websocketReconnected
        case .sse: .sse
        case .pollingFallback: .pollingFallback
        case .polling: .polling
        }
    }
}
