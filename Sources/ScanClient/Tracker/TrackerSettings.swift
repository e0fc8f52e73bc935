import BookscanBase

/// The tracker's timing rules; defaults follow the transport research (Phoenix 2.5 s, Ably 10 s, SignalR).
public struct TrackerSettings: Sendable, Equatable {
    /// How often polling reads the job status unless told otherwise.
    public static let defaultPollInterval: Duration = .seconds(2)
    /// How long an open socket may stay silent unless told otherwise.
    public static let defaultSilenceTimeout: Duration = .seconds(5)
    /// How long a run follows its job before giving up (`--timeout`); the job keeps running on the server.
    public static let defaultRunTimeout: Duration = .seconds(15 * 60)
    /// A silent socket is declared dead only after this many missed server heartbeats.
    public static let heartbeatsBeforeSilence = 2.5
    /// A heartbeat is late this long after it was due: a quarter of the interval, at least 500 ms
    /// (room for a loaded machine; a healthy socket must never cost a request).
    public static let heartbeatLateFraction = 0.25
    public static let minimumHeartbeatLateMargin: Duration = .milliseconds(500)
    /// The longest pause a poll's `Retry-After` can impose unless told otherwise.
    public static let defaultMaxRetryAfter: Duration = .seconds(30)
    /// How long a reconnect's upgrade may go unanswered unless told otherwise.
    public static let defaultReconnectDeadline: Duration = .seconds(5)

    /// How often polling reads the job status.
    public var pollInterval: Duration
    /// Without a WebSocket frame this long after the upload was accepted, polling starts in parallel.
    public var firstFrameDeadline: Duration
    /// Without any WebSocket frame this long after acceptance, the run stops trying the WebSocket.
    public var socketGiveUp: Duration
    /// An open socket with no frame for this long during a job counts as dead.
    public var silenceTimeout: Duration
    /// WebSocket failures after which a run stays on polling.
    public var maxSocketFailures: Int
    /// Reconnect backoff: full jitter rand(0, min(cap, base·2ⁿ)), first retry immediate.
    public var backoffBase: Duration
    public var backoffCap: Duration
    /// The server's heartbeat interval, when known (`/v1/limits`): a frame not followed by another
    /// within it plus a margin sends one hedged poll while the socket stays open.
    public var heartbeatInterval: Duration?
    /// A reconnect (after the first frame) whose upgrade is not answered within this counts as a failed socket.
    public var reconnectDeadline: Duration
    /// A poll's `Retry-After` is honoured up to this long.
    public var maxRetryAfter: Duration

    public init(
        pollInterval: Duration = defaultPollInterval, firstFrameDeadline: Duration = .milliseconds(2500), socketGiveUp: Duration = .seconds(10),
        silenceTimeout: Duration = defaultSilenceTimeout, maxSocketFailures: Int = 5, backoffBase: Duration = .seconds(1),
        backoffCap: Duration = .seconds(30), heartbeatInterval: Duration? = nil, reconnectDeadline: Duration = defaultReconnectDeadline,
        maxRetryAfter: Duration = defaultMaxRetryAfter
    ) {
        self.maxRetryAfter = maxRetryAfter
        self.heartbeatInterval = heartbeatInterval
        self.reconnectDeadline = reconnectDeadline
        self.pollInterval = pollInterval
        self.firstFrameDeadline = firstFrameDeadline
        self.socketGiveUp = socketGiveUp
        self.silenceTimeout = silenceTimeout
        self.maxSocketFailures = maxSocketFailures
        self.backoffBase = backoffBase
        self.backoffCap = backoffCap
    }

    /// These settings for a server that sends a heartbeat every `heartbeatSeconds`: the silence
    /// timeout is never shorter than `heartbeatsBeforeSilence` heartbeats. A value that is not a
    /// usable interval (zero, negative, not finite, absurdly large) leaves the settings unchanged.
    public func adapted(toHeartbeat heartbeatSeconds: Double) -> TrackerSettings {
        guard heartbeatSeconds > 0, let silence = Duration.checkedSeconds(heartbeatSeconds * Self.heartbeatsBeforeSilence) else { return self }
        var settings = self
        settings.silenceTimeout = max(silenceTimeout, silence)
        settings.heartbeatInterval = Duration.checkedSeconds(heartbeatSeconds)
        return settings
    }

    /// How much later than due a heartbeat counts as late; nil when the interval is unknown.
    public var heartbeatLateMargin: Duration? {
        heartbeatInterval.map { max(Self.minimumHeartbeatLateMargin, $0 * Self.heartbeatLateFraction) }
    }

    /// How long after a heartbeat (or a socket's first frame) the next one counts as late; nil when
    /// the interval is unknown. While it stays late, a hedged poll with nothing new is repeated
    /// every `heartbeatLateMargin`.
    public var heartbeatLateAfter: Duration? {
        guard let heartbeatInterval, let margin = heartbeatLateMargin else { return nil }
        let late = heartbeatInterval + margin
        // Never later than the silence rule itself: then the hedge would add nothing.
        return late < silenceTimeout ? late : nil
    }
}
