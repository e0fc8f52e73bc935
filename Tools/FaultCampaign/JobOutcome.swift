/// What happened to one campaign job and every check it failed.
package struct JobOutcome: Sendable, Codable {
    package var job: CampaignJob
    /// The job id the client made (lowercase UUID); nil when no job was submitted.
    package var jobId: String?
    /// The run's outcome (`succeeded`, `failed`, `timed_out`, …).
    package var outcome: String
    /// The classification the analytics record shows (`strategy/reason/status/phase`).
    package var classification: String?
    package var seconds: Double
    /// Failed checks, each one line; empty when the job passed.
    package var failures: [String]
    /// For a failed job: what the proxy did to each connection and the client's counters.
    package var trace: String?
    /// Events the run emitted, per path (what the report and the analytics record must count).
    package var emittedByPath: [String: Int]?
    /// Seconds from the service writing the terminal event to the display showing it.
    package var terminalDelaySeconds: Double?

    package var passed: Bool { failures.isEmpty }
}
