public import Foundation

/// The current state of a job, as `PUT` and `GET /v1/scans/{jobId}` return it; polling reads this.
public struct JobSnapshot: Codable, Sendable, Equatable {
    enum CodingKeys: String, CodingKey {
        case jobId, state, stage, fraction, seq, createdAt, updatedAt, startedAt, finishedAt, expiresAt, imageBytes, result, error, links
    }

    public var jobId: UUID
    public var state: JobState
    public var stage: ScanStage
    public var fraction: Double
    /// Sequence number of the job's latest event (0 before the first).
    public var seq: Int
    public var createdAt: Date
    public var updatedAt: Date
    public var startedAt: Date?
    public var finishedAt: Date?
    /// When the job and its events will be forgotten.
    public var expiresAt: Date
    /// Number of bytes of the uploaded image.
    public var imageBytes: Int
    public var result: ScanResult?
    public var error: ErrorBody?
    public var links: JobLinks

    public init(
        jobId: UUID, state: JobState, stage: ScanStage, fraction: Double, seq: Int, createdAt: Date, updatedAt: Date,
        startedAt: Date?, finishedAt: Date?, expiresAt: Date, imageBytes: Int, result: ScanResult?, error: ErrorBody?,
        links: JobLinks
    ) {
        self.jobId = jobId
        self.state = state
        self.stage = stage
        self.fraction = fraction
        self.seq = seq
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.expiresAt = expiresAt
        self.imageBytes = imageBytes
        self.result = result
        self.error = error
        self.links = links
    }
}

extension JobSnapshot {
    /// Decodes a snapshot; a `fraction` outside 0…1 is clamped into it (the wire is not trusted).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            jobId: try c.decode(UUID.self, forKey: .jobId), state: try c.decode(JobState.self, forKey: .state),
            stage: try c.decode(ScanStage.self, forKey: .stage), fraction: ProgressFraction.clamped(try c.decode(Double.self, forKey: .fraction)),
            seq: try c.decode(Int.self, forKey: .seq), createdAt: try c.decode(Date.self, forKey: .createdAt),
            updatedAt: try c.decode(Date.self, forKey: .updatedAt), startedAt: try c.decodeIfPresent(Date.self, forKey: .startedAt),
            finishedAt: try c.decodeIfPresent(Date.self, forKey: .finishedAt), expiresAt: try c.decode(Date.self, forKey: .expiresAt),
            imageBytes: try c.decode(Int.self, forKey: .imageBytes), result: try c.decodeIfPresent(ScanResult.self, forKey: .result),
            error: try c.decodeIfPresent(ErrorBody.self, forKey: .error), links: try c.decode(JobLinks.self, forKey: .links))
    }
}

/// Server-relative URLs of a job's status and events.
public struct JobLinks: Codable, Sendable, Equatable {
    public var status: String
    public var events: String

    public init(jobId: UUID) {
        self.status = Routes.scan(jobId)
        self.events = Routes.events(jobId, after: 0)
    }
}
