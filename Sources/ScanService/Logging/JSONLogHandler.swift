public import Foundation
public import Logging

/// A swift-log handler that writes one JSON object a line (`bookscan serve --log-format json`):
/// `time` (ISO 8601, ms), `level`, `label`, `message`, and every metadata key at the top level
/// (`instance`, `request_id`, `job_id`, `method`, `route`, `path`, `status`, `duration_ms`, …).
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level = .info
    private let label: String
    private let write: @Sendable (String) -> Void

    /// A handler for `label` writing each line with `write` (default: standard error, one write a line).
    public init(label: String, write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.label = label
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        var object: [String: Any] = [:]
        for (key, value) in merged { object[key] = Self.json(value) }
        object["time"] = Self.timestamp(Date())
        object["level"] = event.level.rawValue
        object["label"] = label
        object["message"] = event.message.description
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        write(String(decoding: data, as: UTF8.self) + "\n")
    }

    /// Numbers stay numbers (`status`, `duration_ms`), everything else is text.
    static func json(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case .string(let text): return text
        case .stringConvertible(let convertible):
            if let number = convertible as? Int { return number }
            if let number = convertible as? Double, number.isFinite { return number }
            return convertible.description
        case .array(let values): return values.map(json)
        case .dictionary(let values): return values.mapValues(json)
        }
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
