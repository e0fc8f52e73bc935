package import Foundation
package import ImagePreparation
package import RunModel
package import ScanProtocol

/// Everything about one image's run: what the CLI prints and `--json` emits. How the run went over the
/// network is its `RunSummary` (read through as if its fields were the report's own: `report.polls`),
/// which the analytics record embeds as it is.
@dynamicMemberLookup
package struct ScanReport: Codable, Sendable {
    package var image: String
    package var jobId: UUID?
    package var state: JobState?
    /// How the run went over the network (encoded flat, beside the report's own fields).
    package var run: RunSummary
    package var prepareMilliseconds: Double?
    /// Event-stream (SSE) failures.
    package var streamFailures: Int
    package var uploadAttempts: Int
    package var resubmissions: Int
    package var spineCount: Int?
    package var error: String?
    /// The preparation error, for its exit code (not encoded).
    package var inputError: PrepareError?
    package var result: ScanResult?

    private enum CodingKeys: String, CodingKey {
        case image, jobId, state, prepareMilliseconds, streamFailures, uploadAttempts, resubmissions, spineCount, error, result
    }

    package init(image: String, outcome: RunOutcome, totalSeconds: Double) {
        self.image = image
        run = RunSummary(outcome: outcome, totalSeconds: totalSeconds)
        streamFailures = 0
        uploadAttempts = 0
        resubmissions = 0
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        image = try c.decode(String.self, forKey: .image)
        jobId = try c.decodeIfPresent(UUID.self, forKey: .jobId)
        state = try c.decodeIfPresent(JobState.self, forKey: .state)
        run = try RunSummary(from: decoder)
        prepareMilliseconds = try c.decodeIfPresent(Double.self, forKey: .prepareMilliseconds)
        streamFailures = try c.decode(Int.self, forKey: .streamFailures)
        uploadAttempts = try c.decode(Int.self, forKey: .uploadAttempts)
        resubmissions = try c.decode(Int.self, forKey: .resubmissions)
        spineCount = try c.decodeIfPresent(Int.self, forKey: .spineCount)
        error = try c.decodeIfPresent(String.self, forKey: .error)
        result = try c.decodeIfPresent(ScanResult.self, forKey: .result)
    }

    package func encode(to encoder: any Encoder) throws {
        try run.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(image, forKey: .image)
        try c.encodeIfPresent(jobId, forKey: .jobId)
        try c.encodeIfPresent(state, forKey: .state)
        try c.encodeIfPresent(prepareMilliseconds, forKey: .prepareMilliseconds)
        try c.encode(streamFailures, forKey: .streamFailures)
        try c.encode(uploadAttempts, forKey: .uploadAttempts)
        try c.encode(resubmissions, forKey: .resubmissions)
        try c.encodeIfPresent(spineCount, forKey: .spineCount)
        try c.encodeIfPresent(error, forKey: .error)
        try c.encodeIfPresent(result, forKey: .result)
    }

    /// The run summary's fields, read and written as the report's own.
    package subscript<Value>(dynamicMember field: WritableKeyPath<RunSummary, Value>) -> Value {
        get { run[keyPath: field] }
        set { run[keyPath: field] = newValue }
    }

    /// Fills the tracking fields from a tracked run.
    mutating func record(_ run: TrackedRun) {
        let earlier = self.run.strategy
        // A run nothing carried keeps what an earlier submission of the same job recorded.
        self.run.strategy = run.strategy?.name ?? earlier
        if run.strategy == .websocket, self.run.socketFailures > 0 || (earlier != nil && earlier != .websocket) {
            // A resubmission's socket carried the end, but the first submission's socket had failed
            // (or polling had carried it).
            self.run.strategy = .websocketReconnected
        }
        switch run.strategy {
        case .pollingFallback(let reason, let status, let phase, let from):
            self.run.recordFallback(from: from, TransportFailure(reason: reason, status: status, phase: phase))
        case .sse(let failure?):
            self.run.recordFallback(from: .websocket, failure)
        default:
            break
        }
        self.run.uploadSeconds = run.uploadSeconds
        self.run.firstEventSeconds = run.firstEventSeconds
        self.run.reconnects += run.metrics.reconnects
        self.run.socketFailures += run.metrics.socketFailures
        streamFailures += run.metrics.streamFailures
        self.run.polls += run.metrics.pollsMade
        for (path, count) in run.metrics.eventsByPath { self.run.eventsByPath[path.rawValue, default: 0] += count }
    }
}
