import Foundation

/// The one JSON encoding of the protocol: camelCase keys, ISO 8601 dates with milliseconds.
public enum WireCoding {
    private static let format = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// A new encoder configured for the wire.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(date.formatted(format))
        }
        return encoder
    }

    /// A new decoder configured for the wire.
    public static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let date = try? format.parse(text) { return date }
            if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date: \(text)")
        }
        return decoder
    }

    /// Encodes a value to JSON bytes.
    public static func encode<T: Encodable>(_ value: T) throws -> Data { try encoder().encode(value) }

    /// Decodes a value from JSON bytes.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T { try decoder().decode(type, from: data) }
}
