/// Test seams: deliberate misbehaviour the service injects into itself so integration tests, the
/// fault campaign and benchmarks can reproduce what broken networks and slow servers do. Package
/// access only: no public API of `ScanService` exposes them. Every field defaults to "behave normally".
package struct FaultSeams: Sendable {
    /// Refuse every WebSocket upgrade on the events route with this HTTP status (for example 503).
    package var refuseUpgradeStatus: Int?
    /// Accept the upgrade, then send nothing at all (no events, no heartbeats) and ignore pings.
    package var silentSockets: Bool
    /// Close each events socket abruptly after sending this many event frames.
    package var dropSocketAfterEvents: Int?
    /// Answer every Nth status poll (`GET /v1/scans/{id}`) with 500.
    package var failEveryNthPoll: Int?
    /// Wait this long before answering each request (a slow server).
    package var responseDelay: Duration?
    /// Sleep this long after each progress step of a scan, so scans last long enough to disturb
    /// (`bookscan serve --scan-step-delay SECONDS`, hidden).
    package var scanStepDelay: Duration?
    /// Replace the scan engine with one that costs nothing: a job runs through its stages and
    /// succeeds with an empty result at once (`bookscan serve --instant-scan`, hidden; benchmarks of
    /// the job store and fan-out, where the engine's CPU would hide what is measured).
    package var instantScan: Bool
    /// Called on the thread that validates an upload (tests check it is off the cooperative pool).
    package var observeValidation: (@Sendable () -> Void)?
    /// Called with the method and path of every HTTP request the router serves, and whether it is a
    /// refused WebSocket upgrade (accepted upgrades never reach the router).
    package var observeRequest: (@Sendable (_ method: String, _ path: String, _ refusedUpgrade: Bool) -> Void)?

    package init(
        refuseUpgradeStatus: Int? = nil,
        silentSockets: Bool = false,
        dropSocketAfterEvents: Int? = nil,
        failEveryNthPoll: Int? = nil,
        responseDelay: Duration? = nil,
        scanStepDelay: Duration? = nil,
        instantScan: Bool = false,
        observeValidation: (@Sendable () -> Void)? = nil,
        observeRequest: (@Sendable (_ method: String, _ path: String, _ refusedUpgrade: Bool) -> Void)? = nil
    ) {
        self.observeRequest = observeRequest
        self.refuseUpgradeStatus = refuseUpgradeStatus
        self.silentSockets = silentSockets
        self.dropSocketAfterEvents = dropSocketAfterEvents
        self.failEveryNthPoll = failEveryNthPoll
        self.responseDelay = responseDelay
        self.scanStepDelay = scanStepDelay
        self.instantScan = instantScan
        self.observeValidation = observeValidation
    }
}

extension ServiceConfiguration {
    /// Test seam: this configuration with `faults` injected.
    package func injecting(_ faults: FaultSeams) -> ServiceConfiguration {
        var copy = self
        copy.faults = faults
        return copy
    }
}
