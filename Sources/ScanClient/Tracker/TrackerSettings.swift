/// The tracker's timing rules; defaults follow the transport research (Phoenix 2.5 s, Ably 10 s, SignalR).
public struct TrackerSettings: Sendable, Equatable {
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

    public init(
        pollInterval: Duration = .seconds(2), firstFrameDeadline: Duration = .milliseconds(2500), socketGiveUp: Duration = .seconds(10),
        silenceTimeout: Duration = .seconds(5), maxSocketFailures: Int = 5, backoffBase: Duration = .seconds(1),
        backoffCap: Duration = .seconds(30)
    ) {
        self.pollInterval = pollInterval
        self.firstFrameDeadline = firstFrameDeadline
        self.socketGiveUp = socketGiveUp
        self.silenceTimeout = silenceTimeout
        self.maxSocketFailures = maxSocketFailures
        self.backoffBase = backoffBase
        self.backoffCap = backoffCap
    }
}
