import RunModel
extension TrackerStateMachine {
    /// The strategy that carried the run (meaningful once finished), from what actually happened:
    /// the WebSocket if a socket with frames was carrying the job at the end (whichever path
    /// delivered the end first); else the event stream if it was carrying it; polling after a
    /// failure (of the event stream when it was tried and failed, else of the WebSocket) if polling
    /// was following the job; nil when nothing carried anything (e.g. interrupted or timed out
    /// before any frame or poll, or a forced transport that never carried the job).
    package var strategy: ProgressStrategy? {
        if mode == .polling { return .polling }
        let carrying = finished ? socketCarriedEnd : socketIsCarrying
        let streamCarrying = finished ? streamCarriedEnd : stream.isCarrying
        let pollingNow = finished ? pollingAtEnd : polling
        if carrying { return metrics.socketFailures > 0 ? .websocketReconnected : .websocket }
        let webSocketFailure = firstFailure.map { TransportFailure(reason: $0.reason, status: $0.status, phase: $0.phase) }
        if streamCarrying { return .sse(afterWebSocket: mode == .sse ? nil : webSocketFailure) }
        if pollingNow || metrics.pollsMade > metrics.hedgedPolls {
            if let failure = stream.firstFailure {
                return .pollingFallback(reason: failure.reason, status: failure.status, phase: failure.phase, from: .sse)
            }
            let failure = webSocketFailure ?? TransportFailure(reason: .connectTimeout, phase: .beforeFirstEvent)
            return .pollingFallback(reason: failure.reason, status: failure.status, phase: failure.phase)
        }
        return nil
    }

    /// An open socket that has carried frames on this connection.
    var socketIsCarrying: Bool {
        if case .open(_, sawFrame: true) = socket { true } else { false }
    }
}
