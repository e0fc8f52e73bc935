import Foundation

/// A text frame the server sends on the events WebSocket: `{"type":"event","event":{…}}` or
/// `{"type":"heartbeat","heartbeat":{…}}`.
public enum ServerMessage: Codable, Sendable, Equatable {
    case event(JobEvent)
    case heartbeat(Heartbeat)

    private enum CodingKeys: String, CodingKey { case type, event, heartbeat }
    private enum Kind: String, Codable { case event, heartbeat }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Kind.self, forKey: .type) {
        case .event: self = .event(try container.decode(JobEvent.self, forKey: .event))
        case .heartbeat: self = .heartbeat(try container.decode(Heartbeat.self, forKey: .heartbeat))
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
        }
    }
}

/// The small keep-alive the server sends while a socket is open, so silence means a dead path.
public struct Heartbeat: Codable, Sendable, Equatable {
    /// The sequence number of the job's latest event when the heartbeat was sent.
    public var latestSeq: Int
    public var timestamp: Date

    public init(latestSeq: Int, timestamp: Date) {
        self.latestSeq = latestSeq
        self.timestamp = timestamp
    }
}
