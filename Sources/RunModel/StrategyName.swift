/// The name of a ProgressStrategy, as the analytics log, `stats` and `--json` write it.
package enum StrategyName: String, Codable, Sendable, CaseIterable {
    /// The WebSocket carried the job to its end with no failure.
    case websocket
    /// The WebSocket carried the job to its end after reconnecting.
    case websocketReconnected = "websocket_reconnected"
    /// Server-Sent Events carried the job to its end (after a WebSocket failure, or forced).
    case sse
    /// Polling delivered the end because the WebSocket (and the event stream, when tried) failed.
    case pollingFallback = "polling_fallback"
    /// Polling was forced.
    case polling

    /// Whether the WebSocket carried the job (with or without a reconnect).
    package var isWebSocket: Bool { self == .websocket || self == .websocketReconnected }
}
