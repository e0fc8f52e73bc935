/// What happened to one campaign job and every check it failed.
public struct JobOutcome: Sendable, Codable {
    public var job: CampaignJob
    /// The job id the client made (lowercase UUID); nil when no job was submitted.
    public var jobId: String?
    /// The run's outcome (`succeeded`, `failed`, `timed_out`, …).
    public var outcome: String
    /// The classification the analytics record shows (`strategy/reason/status/phase`).
    public var classification: String?
    public var seconds: Double
    /// Failed checks, each one line; empty when the job passed.
    public var failures: [String]
    /// For a failed job: what the proxy did to each connection and the client's counters.
    public var trace: String?
    /// Events the run emitted, per path (what the report and the analytics record must count).
    public var emittedByPath: [String: Int]?
    /// Seconds from the service writing the terminal event to the display showing it.
    public var terminalDelaySeconds: Double?

    public var passed: Bool { failures.isEmpty }
}
