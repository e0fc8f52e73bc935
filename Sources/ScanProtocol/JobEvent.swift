import Foundation

/// One entry of a job's ordered event log. `seq` is 1, 2, 3… per job, with no gaps; the
/// client accepts an event only if its `seq` is new.
public struct JobEvent: Codable, Sendable, Equatable {
    public var jobId: UUID
    public var seq: Int
    public var state: JobState
    public var stage: ScanStage
    /// Overall progress of the job, 0…1; never lower than an earlier event's.
    public var fraction: Double
    public var timestamp: Date
    /// Set on the `succeeded` event only.
    public var result: ScanResult?
    /// Set on the `failed` and `canceled` events only.
    public var error: ErrorBody?

    public init(
        jobId: UUID, seq: Int, state: JobState, stage: ScanStage, fraction: Double, timestamp: Date,
        result: ScanResult? = nil, error: ErrorBody? = nil
    ) {
        self.jobId = jobId
        self.seq = seq
        self.state = state
        self.stage = stage
        self.fraction = fraction
        self.timestamp = timestamp
        self.result = result
        self.error = error
    }
}
