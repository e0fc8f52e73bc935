public import Foundation

/// The one JSON encoding of the protocol: camelCase keys, ISO 8601 dates with milliseconds.
public enum WireCoding {
    private static let format = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// A new encoder configured for the wire.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(millisecondText(date))
        }
        return encoder
    }

    /// The date rounded to the nearest millisecond, as text. (The formatter truncates, and a decoded
    /// `.123` is stored as `.12299999…`, so without the rounding dates would drift on every round trip.)
    static func millisecondText(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        return Date(timeIntervalSince1970: milliseconds / 1000 + 0.000_1).formatted(format)  // +0.1 ms: above Double rounding, below the next millisecond
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
