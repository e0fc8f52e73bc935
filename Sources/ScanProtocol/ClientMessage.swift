/// A text frame a client sends on the events WebSocket. `hello` tells the server the client is
/// reading, so the server starts the replay only then (frames sent in the same TCP segment as the
/// 101 response can be lost by some WebSocket clients). Servers also start after a short grace
/// period for clients that never say hello.
public enum ClientMessage: Codable, Sendable, Equatable {
    case hello(ClientHello)

    private enum CodingKeys: String, CodingKey { case type, hello }
    private enum Kind: String, Codable { case hello }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        switch try container.decode(Kind.self, forKey: .type) {
        case .hello: self = .hello(try container.decode(ClientHello.self, forKey: .hello))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .hello(let hello):
            try container.encode(Kind.hello, forKey: .type)
            try container.encode(hello, forKey: .hello)
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
