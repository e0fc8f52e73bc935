public import Foundation

/// A text frame a client sends on an events WebSocket. `hello` tells the server the client is
/// reading, so the server starts the replay only then (frames sent in the same TCP segment as the
/// 101 response can be lost by some WebSocket clients). Servers also start after a short grace
/// period for clients that never say hello. On the multiplexed route (`/v1/events`) `subscribe`
/// adds jobs (each replayed after its own `after`; a job already subscribed starts again from the new
/// cursor) and `unsubscribe` removes them; one-job sockets ignore both.
public enum ClientMessage: Codable, Sendable, Equatable {
    case hello(ClientHello)
    case subscribe(SubscribeRequest)
    case unsubscribe(UnsubscribeRequest)

    private enum CodingKeys: String, CodingKey { case type, hello, subscribe, unsubscribe }
    private enum Kind: String, Codable { case hello, subscribe, unsubscribe }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Kind.self, forKey: .type) {
        case .hello: self = .hello(try container.decode(ClientHello.self, forKey: .hello))
        case .subscribe: self = .subscribe(try container.decode(SubscribeRequest.self, forKey: .subscribe))
        case .unsubscribe: self = .unsubscribe(try container.decode(UnsubscribeRequest.self, forKey: .unsubscribe))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .hello(let hello):
            try container.encode(Kind.hello, forKey: .type)
            try container.encode(hello, forKey: .hello)
        case .subscribe(let request):
            try container.encode(Kind.subscribe, forKey: .type)
            try container.encode(request, forKey: .subscribe)
        case .unsubscribe(let request):
            try container.encode(Kind.unsubscribe, forKey: .type)
            try container.encode(request, forKey: .unsubscribe)
        }
    }
}

/// The client's greeting on an events socket.
public struct ClientHello: Codable, Sendable, Equatable {
    public var protocolVersion: Int

    public init(protocolVersion: Int = 1) {
        self.protocolVersion = protocolVersion
    }

    /// The encoded frame text of `ClientMessage.hello(ClientHello())`.
    public static let frame = #"{"hello":{"protocolVersion":1},"type":"hello"}"#
}

/// Jobs to add to a multiplexed events socket, each with the seq its replay starts after.
public struct SubscribeRequest: Codable, Sendable, Equatable {
    public var jobs: [JobCursor]

    public init(jobs: [JobCursor]) {
        self.jobs = jobs
    }
}

/// Jobs to remove from a multiplexed events socket (unknown ones are ignored).
public struct UnsubscribeRequest: Codable, Sendable, Equatable {
    public var jobs: [UUID]

    public init(jobs: [UUID]) {
        self.jobs = jobs
    }
}
