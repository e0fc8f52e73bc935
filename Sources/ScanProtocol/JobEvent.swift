public import Foundation

/// One entry of a job's ordered event log. `seq` is 1, 2, 3… per job, with no gaps; the
/// client accepts an event only if its `seq` is new.
public struct JobEvent: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey { case jobId, seq, state, stage, fraction, timestamp, result, error }

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

extension JobEvent {
    /// Decodes an event; a `fraction` outside 0…1 is clamped into it (the wire is not trusted).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            jobId: try c.decode(UUID.self, forKey: .jobId), seq: try c.decode(Int.self, forKey: .seq),
            state: try c.decode(JobState.self, forKey: .state), stage: try c.decode(ScanStage.self, forKey: .stage),
            fraction: ProgressFraction.clamped(try c.decode(Double.self, forKey: .fraction)),
            timestamp: try c.decode(Date.self, forKey: .timestamp), result: try c.decodeIfPresent(ScanResult.self, forKey: .result),
            error: try c.decodeIfPresent(ErrorBody.self, forKey: .error))
    }
}
