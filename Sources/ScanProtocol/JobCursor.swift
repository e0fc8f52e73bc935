public import Foundation

/// One job of a multiplexed events subscription and where its replay starts: events with a seq
/// above `after`. Written `ID` or `ID:N` in the `jobs=` query of `GET /v1/events`.
public struct JobCursor: Codable, Sendable, Equatable, Hashable {
    public var jobId: UUID
    /// Replay starts after this seq (0: every event).
    public var after: Int

    public init(jobId: UUID, after: Int = 0) {
        self.jobId = jobId
        self.after = max(0, after)
    }

    /// `id` or `id:after` (lower-case UUID).
    public var queryText: String {
        let id = jobId.uuidString.lowercased()
        return after > 0 ? "\(id):\(after)" : id
    }

    /// Parses one `ID` or `ID:N`; nil when the id is not a UUID or N is not a non-negative integer.
    public init?(queryText text: some StringProtocol) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let id = parts.first.flatMap({ UUID(uuidString: String($0)) }) else { return nil }
        var after = 0
        if parts.count == 2 {
            guard let n = Int(parts[1]), n >= 0 else { return nil }
            after = n
        }
        self.init(jobId: id, after: after)
    }

    /// Parses a `jobs=` value (`ID,ID:N,…`): the cursors in order (a job listed twice keeps its last
    /// cursor), or nil when any entry is malformed. An empty value is an empty list.
    public static func list(fromQuery text: some StringProtocol) -> [JobCursor]? {
        var cursors: [JobCursor] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: true) {
            guard let cursor = JobCursor(queryText: part.trimmingCharacters(in: .whitespaces)) else { return nil }
            cursors.removeAll { $0.jobId == cursor.jobId }
            cursors.append(cursor)
        }
        return cursors
    }

    /// The `jobs=` value for `cursors`.
    public static func query(_ cursors: [JobCursor]) -> String { cursors.map(\.queryText).joined(separator: ",") }
}

/// A job's newest event seq, as a multiplexed heartbeat reports it for each subscribed job.
public struct JobLatestSeq: Codable, Sendable, Equatable {
    public var jobId: UUID
    public var latestSeq: Int

    public init(jobId: UUID, latestSeq: Int) {
        self.jobId = jobId
        self.latestSeq = latestSeq
    }
}
