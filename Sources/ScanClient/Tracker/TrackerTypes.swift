import ScanProtocol

/// Which path carries progress: decided by `--strategy`.
public enum TrackerMode: String, Sendable, CaseIterable {
    /// WebSocket first, polling in parallel when it is slow, silent or broken.
    case auto
    /// WebSocket only; the run fails if the socket cannot carry the job.
    case websocket
    /// HTTP polling only.
    case polling
}

/// Where an accepted event came from.
public enum EventPath: String, Codable, Sendable, CaseIterable {
    case websocket
    case polling
    /// The snapshot the upload itself returned.
    case upload
}

/// Why the WebSocket could not carry (part of) a job.
public enum SocketFailureReason: String, Codable, Sendable, CaseIterable {
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
}

/// Whether a fallback happened before any event arrived or in the middle of the scan.
public enum FallbackPhase: String, Codable, Sendable, CaseIterable {
    case beforeFirstEvent = "before_first_event"
    case midScan = "mid_scan"
}

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

/// How a socket attempt ended, as the driver reports it to the state machine.
public enum SocketEnd: Sendable, Equatable {
    /// Could not open: the upgrade got this HTTP status (nil when unknown).
    case refused(status: Int?)
    /// Could not connect at all.
    case unreachable
    /// Was open, then closed by the peer with this close code (nil: no close frame, e.g. a reset).
    case closed(code: Int?)
    /// Sent something that is not a protocol message.
    case protocolError
}

/// What a status poll returned.
public enum PollOutcome: Sendable, Equatable {
    case snapshot(JobSnapshot)
    /// An HTTP error status with the protocol error body when there was one.
    case httpError(status: Int, ErrorBody?)
    /// No response (connection refused, reset, timed out).
    case transportError(String)
}

/// Timers the state machine asks the driver to run; scheduling one again replaces it.
public enum TrackerTimer: Hashable, Sendable {
    /// No frame within this long after the upload was accepted: start polling in parallel.
    case firstFrameDeadline
    /// Still no frame ever: stop trying the WebSocket for this run.
    case socketGiveUp
    /// The socket with this connection number has been silent for the silence timeout.
    case silence(connection: Int)
    case reconnect
    case poll
}

extension TrackerTimer {
    /// Timers that declare a socket dead because no frame came: after a stall of this process they
    /// get a short grace, since frames may have arrived while it was stalled.
    var waitsForFrames: Bool {
        switch self {
        case .silence, .firstFrameDeadline, .socketGiveUp: true
        case .reconnect, .poll: false
        }
    }
}

/// How a tracked run ended.
public enum TrackerEnding: Sendable, Equatable {
    /// The job reached a terminal state (succeeded, failed or canceled); the event is the terminal one.
    case terminal(JobEvent)
    /// `--timeout` passed before the job finished; it may still be running on the server.
    case timedOut
    /// The user interrupted (Ctrl-C); the job may still be running on the server.
    case interrupted
    /// The server no longer knows the job (404 on status).
    case jobLost
    /// The server refused our credentials (401/403).
    case unauthorized(status: Int)
    /// `--strategy websocket` and the WebSocket could not carry the job.
    case socketUnavailable(SocketFailureReason)
}
