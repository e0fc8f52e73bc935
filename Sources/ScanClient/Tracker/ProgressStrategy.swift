/// How the run's progress was carried, exactly: the ProgressStrategy the analytics log records.
public enum ProgressStrategy: Codable, Sendable, Equatable {
    /// The WebSocket carried the job to its end with no failure.
    case websocket
    /// The WebSocket carried the job to its end after reconnecting at least once.
    case websocketReconnected
    /// Polling delivered the end because the WebSocket failed (first failure's reason and phase).
    case pollingFallback(reason: SocketFailureReason, status: Int?, phase: FallbackPhase)
    /// Polling was forced with `--strategy polling`.
    case polling

    /// The name used in logs and summaries.
    public var name: StrategyName {
        switch self {
        case .websocket: .websocket
        case .websocketReconnected: .websocketReconnected
        case .pollingFallback: .pollingFallback
        case .polling: .polling
        }
    }
}
