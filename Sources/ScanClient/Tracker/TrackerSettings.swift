import BookscanBase

/// The tracker's timing rules; defaults follow the transport research (Phoenix 2.5 s, Ably 10 s, SignalR).
package struct TrackerSettings: Sendable, Equatable {
    /// How often polling reads the job status unless told otherwise.
    package static let defaultPollInterval: Duration = .seconds(2)
    /// How long after the upload's acceptance a first WebSocket frame may take before polling starts
    /// beside it, unless told otherwise.
    package static let defaultFirstFrameDeadline: Duration = .milliseconds(2500)
    /// How long after acceptance a run keeps trying the WebSocket without any frame, unless told otherwise.
    package static let defaultSocketGiveUp: Duration = .seconds(10)
    /// WebSocket failures after which a run stays on polling, unless told otherwise.
    package static let defaultMaxSocketFailures = 5
    /// The reconnect backoff's base and cap unless told otherwise.
    package static let defaultBackoffBase: Duration = .seconds(1)
    package static let defaultBackoffCap: Duration = .seconds(30)
    /// How long an open socket may stay silent unless told otherwise.
    package static let defaultSilenceTimeout: Duration = .seconds(5)
    /// How long a run follows its job before giving up (`--timeout`); the job keeps running on the server.
    package static let defaultRunTimeout: Duration = .seconds(15 * 60)
    /// A silent socket is declared dead only after this many missed server heartbeats.
    package static let heartbeatsBeforeSilence = 2.5
    /// A heartbeat is late this long after it was due: a quarter of the interval, at least 500 ms
    /// (room for a loaded machine; a healthy socket must never cost a request).
    package static let heartbeatLateFraction = 0.25
    package static let minimumHeartbeatLateMargin: Duration = .milliseconds(500)
    /// The longest pause a poll's `Retry-After` can impose unless told otherwise.
    package static let defaultMaxRetryAfter: Duration = .seconds(30)
    /// How long a reconnect's upgrade may go unanswered unless told otherwise.
    package static let defaultReconnectDeadline: Duration = .seconds(5)
    /// How far behind the server a transport may fall unless told otherwise (see `maxLag`).
    package static let defaultMaxLag: Duration = .seconds(1)
    /// How long the carrying transport may go without fresh news before a hedged poll checks it
    /// unless told otherwise (see `lagProbeInterval`): a poll shows what a lagging event stream holds
    /// back at most this long after its last fresh news, and with `defaultMaxLag` it is left 1 s later.
    package static let defaultLagProbeInterval: Duration = .milliseconds(1500)
    /// How long after a heartbeat naming a seq the carrying transport has not delivered the probe
    /// comes, unless told otherwise: room for that seq's frame, sent right after the heartbeat.
    package static let defaultHeartbeatAheadGrace: Duration = .milliseconds(500)

    /// How often polling reads the job status.
    package var pollInterval: Duration
    /// Without a WebSocket frame this long after the upload was accepted, polling starts in parallel.
    package var firstFrameDeadline: Duration
    /// Without any WebSocket frame this long after acceptance, the run stops trying the WebSocket.
    package var socketGiveUp: Duration
    /// An open socket with no frame for this long during a job counts as dead.
    package var silenceTimeout: Duration
    /// WebSocket failures after which a run stays on polling.
    package var maxSocketFailures: Int
    /// Reconnect backoff: full jitter rand(0, min(cap, base·2ⁿ)), first retry immediate.
    package var backoffBase: Duration
    package var backoffCap: Duration
    /// The server's heartbeat interval, when known (`/v1/limits`): a frame not followed by another
    /// within it plus a margin sends one hedged poll while the socket stays open.
    package var heartbeatInterval: Duration?
    /// A reconnect (after the first frame) whose upgrade is not answered within this counts as a failed socket.
    package var reconnectDeadline: Duration
    /// A poll's `Retry-After` is honoured up to this long.
    package var maxRetryAfter: Duration
    /// A transport this far behind the server is lagging (`auto`): news this much older than the
    /// freshest arrival is stale, and a seq a status poll showed that the transport has not delivered
    /// this long after leaves it for the next step of the ladder, for the rest of the run.
    package var maxLag: Duration
    /// While a transport carries the job (`auto`) and has brought no fresh news for this long, a hedged
    /// poll checks that it keeps up, again every interval until fresh news comes (see `lagProbeDelay`).
    package var lagProbeInterval: Duration
    /// A heartbeat naming a seq the carrying transport has not delivered brings the probe forward to
    /// this long after it (see `defaultHeartbeatAheadGrace`).
    package var heartbeatAheadGrace: Duration = defaultHeartbeatAheadGrace

    package init(
        pollInterval: Duration = defaultPollInterval, firstFrameDeadline: Duration = defaultFirstFrameDeadline,
        socketGiveUp: Duration = defaultSocketGiveUp, silenceTimeout: Duration = defaultSilenceTimeout,
        maxSocketFailures: Int = defaultMaxSocketFailures, backoffBase: Duration = defaultBackoffBase,
        backoffCap: Duration = defaultBackoffCap, heartbeatInterval: Duration? = nil, reconnectDeadline: Duration = defaultReconnectDeadline,
        maxRetryAfter: Duration = defaultMaxRetryAfter, maxLag: Duration = defaultMaxLag, lagProbeInterval: Duration = defaultLagProbeInterval
    ) {
        self.maxRetryAfter = maxRetryAfter
        self.maxLag = maxLag
        self.lagProbeInterval = lagProbeInterval
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
    package func adapted(toHeartbeat heartbeatSeconds: Double) -> TrackerSettings {
        guard heartbeatSeconds > 0, let silence = Duration.checkedSeconds(heartbeatSeconds * Self.heartbeatsBeforeSilence) else { return self }
        var settings = self
        settings.silenceTimeout = max(silenceTimeout, silence)
        settings.heartbeatInterval = Duration.checkedSeconds(heartbeatSeconds)
        return settings
    }

    /// How much later than due a heartbeat counts as late; nil when the interval is unknown.
    package var heartbeatLateMargin: Duration? {
        heartbeatInterval.map { max(Self.minimumHeartbeatLateMargin, $0 * Self.heartbeatLateFraction) }
    }

    /// How long the transport carrying the job may bring no fresh news before a hedged poll: the lag
    /// probe interval; when the server's heartbeat interval is known, never less than that interval
    /// plus half the late margin, so heartbeats (fresh news: both transports' carry the server's time)
    /// keep a healthy transport from costing any poll.
    package var lagProbeDelay: Duration {
        guard let heartbeatInterval, let margin = heartbeatLateMargin else { return lagProbeInterval }
        return max(lagProbeInterval, heartbeatInterval + margin / 2)
    }

    /// How long after a heartbeat (or a socket's first frame) the next one counts as late; nil when
    /// the interval is unknown. While it stays late, a hedged poll with nothing new is repeated
    /// every `heartbeatLateMargin`.
    package var heartbeatLateAfter: Duration? {
        guard let heartbeatInterval, let margin = heartbeatLateMargin else { return nil }
        let late = heartbeatInterval + margin
        // Never later than the silence rule itself: then the hedge would add nothing.
        return late < silenceTimeout ? late : nil
    }
}
