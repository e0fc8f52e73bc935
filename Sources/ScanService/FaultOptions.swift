/// Server-side fault injection, used by integration tests and the fault campaign to reproduce
/// what broken networks and proxies do. Every field defaults to "behave normally".
public struct FaultOptions: Sendable {
    /// Refuse every WebSocket upgrade on the events route with this HTTP status (for example 503).
    public var refuseUpgradeStatus: Int?
    /// Accept the upgrade, then send nothing at all (no events, no heartbeats) and ignore pings.
    public var silentSockets: Bool
    /// Close each events socket abruptly after sending this many event frames.
    public var dropSocketAfterEvents: Int?
    /// Answer every Nth status poll (`GET /v1/scans/{id}`) with 500.
    public var failEveryNthPoll: Int?
    /// Wait this long before answering each request (a slow server).
    public var responseDelay: Duration?
    /// Sleep this long after each progress step of a scan, so scans last long enough to disturb.
    public var scanStepDelay: Duration?

    public init(
        refuseUpgradeStatus: Int? = nil,
        silentSockets: Bool = false,
        dropSocketAfterEvents: Int? = nil,
        failEveryNthPoll: Int? = nil,
        responseDelay: Duration? = nil,
        scanStepDelay: Duration? = nil
    ) {
        self.refuseUpgradeStatus = refuseUpgradeStatus
        self.silentSockets = silentSockets
        self.dropSocketAfterEvents = dropSocketAfterEvents
        self.failEveryNthPoll = failEveryNthPoll
        self.responseDelay = responseDelay
        self.scanStepDelay = scanStepDelay
    }
}
