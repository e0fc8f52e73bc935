import Foundation

/// The current state of a job, as `PUT` and `GET /v1/scans/{jobId}` return it; polling reads this.
public struct JobSnapshot: Codable, Sendable, Equatable {
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

/// Server-relative URLs of a job's status and events.
public struct JobLinks: Codable, Sendable, Equatable {
    public var status: String
    public var events: String

    public init(jobId: UUID) {
        self.status = Routes.scan(jobId)
        self.events = Routes.events(jobId, after: 0)
    }
}
