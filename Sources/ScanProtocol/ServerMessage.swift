public import Foundation

/// A text frame the server sends on an events WebSocket: `{"type":"event","event":{…}}` or
/// `{"type":"heartbeat","heartbeat":{…}}`; on the multiplexed route also `subscribed` (a job's
/// subscription is open: its replay follows) and `refused` (a job could not be subscribed).
public enum ServerMessage: Codable, Sendable, Equatable {
    case event(JobEvent)
    case heartbeat(Heartbeat)
    case subscribed(SubscriptionOpened)
    case refused(SubscriptionRefused)

    private enum CodingKeys: String, CodingKey { case type, event, heartbeat, subscribed, refused }
    private enum Kind: String, Codable { case event, heartbeat, subscribed, refused }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Kind.self, forKey: .type) {
        case .event: self = .event(try container.decode(JobEvent.self, forKey: .event))
        case .heartbeat: self = .heartbeat(try container.decode(Heartbeat.self, forKey: .heartbeat))
        case .subscribed: self = .subscribed(try container.decode(SubscriptionOpened.self, forKey: .subscribed))
        case .refused: self = .refused(try container.decode(SubscriptionRefused.self, forKey: .refused))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .event(let event):
            try container.encode(Kind.event, forKey: .type)
            try container.encode(event, forKey: .event)
        case .heartbeat(let heartbeat):
            try container.encode(Kind.heartbeat, forKey: .type)
            try container.encode(heartbeat, forKey: .heartbeat)
        case .subscribed(let opened):
            try container.encode(Kind.subscribed, forKey: .type)
            try container.encode(opened, forKey: .subscribed)
        case .refused(let refused):
            try container.encode(Kind.refused, forKey: .type)
            try container.encode(refused, forKey: .refused)
        }
    }
}

/// The small keep-alive the server sends while a socket is open, so silence means a dead path.
public struct Heartbeat: Codable, Sendable, Equatable {
    /// The sequence number of the job's latest event when the heartbeat was sent (on a multiplexed
    /// socket: the highest of `jobs`, 0 with none).
    public var latestSeq: Int
    public var timestamp: Date
    /// On a multiplexed socket: every subscribed job's latest seq. Absent on a one-job socket.
    public var jobs: [JobLatestSeq]?

    public init(latestSeq: Int, timestamp: Date, jobs: [JobLatestSeq]? = nil) {
        self.latestSeq = latestSeq
        self.timestamp = timestamp
        self.jobs = jobs
    }
}

/// A job's subscription on a multiplexed socket is open; its events after `after` follow.
public struct SubscriptionOpened: Codable, Sendable, Equatable {
    public var jobId: UUID
    public var after: Int
    /// The job's newest event seq when the subscription opened.
    public var latestSeq: Int

    public init(jobId: UUID, after: Int, latestSeq: Int) {
        self.jobId = jobId
        self.after = after
        self.latestSeq = latestSeq
    }
}

/// A job could not be subscribed on a multiplexed socket: `status` is what the one-job events route
/// would answer (404 unknown job, 429 too many subscribers or too many jobs on this socket); the
/// socket and its other jobs go on.
public struct SubscriptionRefused: Codable, Sendable, Equatable {
    public var jobId: UUID
    public var status: Int
    public var error: ErrorBody

    public init(jobId: UUID, status: Int, error: ErrorBody) {
        self.jobId = jobId
        self.status = status
        self.error = error
    }
}
