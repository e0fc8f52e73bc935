import Foundation
import ScanAnalytics

/// `$XDG_CONFIG_HOME/bookscan/config.toml` (default `~/.config/bookscan/config.toml`): defaults for
/// `scan` and `watch`. Precedence: command line > environment > this file > built-in defaults.
///
/// The file is flat TOML — `key = value` lines with strings, booleans or numbers, and `#` comments —
/// with the keys `server`, `token_file`, `strategy`, `adaptive`, `poll_interval`, `timeout`, `analytics_keep`. (The
/// one TOML package in this build's package mirror cannot be resolved here, so this flat subset is
/// read directly; anything outside it is an error that names the line.)
struct ConfigFile: Equatable {
    var server: String?
    var tokenFile: String?
    var strategy: String?
    var adaptive: Bool?
    var pollInterval: String?
    var timeout: String?
    var analyticsKeep: Int?

    static let keys: Set<String> = ["server", "token_file", "strategy", "adaptive", "poll_interval", "timeout", "analytics_keep"]

    static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/bookscan/config.toml" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.config/bookscan/config.toml"
    }

    /// Loads the file; a missing file is an empty configuration.
    static func load(path: String = defaultPath()) throws -> ConfigFile {
        guard let data = FileManager.default.contents(atPath: path) else { return ConfigFile() }
        return try parse(String(decoding: data, as: UTF8.self), path: path)
    }

    static func parse(_ text: String, path: String) throws -> ConfigFile {
        var config = ConfigFile()
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = stripComment(String(rawLine)).trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            func fail(_ why: String) -> ConfigError { ConfigError(path: path, line: number + 1, message: why) }
            guard let equals = line.firstIndex(of: "=") else { throw fail("expected `key = value`") }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let rawValue = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard keys.contains(key) else { throw fail("unknown key '\(key)' (known: \(keys.sorted().joined(separator: ", ")))") }
            let value = try parseValue(rawValue, fail: fail)
            switch (key, value) {
            case ("adaptive", .bool(let b)): config.adaptive = b
            case ("adaptive", _): throw fail("adaptive must be true or false")
            case ("analytics_keep", .number(let n)):
                guard n.rounded() == n, n >= 0, n <= Double(AnalyticsLog.maximumKeep) else {
                    throw fail("analytics_keep must be a whole number 0…\(AnalyticsLog.maximumKeep)")
                }
                config.analyticsKeep = Int(n)
            case ("analytics_keep", _): throw fail("analytics_keep must be a whole number 0…\(AnalyticsLog.maximumKeep)")
            case (_, .string(let s)):
                switch key {
                case "server": config.server = s
                case "token_file": config.tokenFile = s
                case "strategy": config.strategy = s
                case "poll_interval": config.pollInterval = s
                default: config.timeout = s
                }
            case ("poll_interval", .number(let n)): config.pollInterval = String(n)
            case ("timeout", .number(let n)): config.timeout = String(n)
            default: throw fail("\(key) must be a quoted string")
            }
        }
        return config
    }

    enum Value { case string(String), bool(Bool), number(Double) }

    static func parseValue(_ text: String, fail: (String) -> ConfigError) throws -> Value {
        if text == "true" { return .bool(true) }
        if text == "false" { return .bool(false) }
        if let number = Double(text) { return .number(number) }
        for quote in ["\"", "'"] where text.count >= 2 && text.hasPrefix(quote) && text.hasSuffix(quote) {
            let inner = String(text.dropFirst().dropLast())
            if quote == "\"" && inner.contains("\\") { throw fail("escapes in strings are not supported; use 'single quotes'") }
            return .string(inner)
        }
        throw fail("cannot read the value \(text)")
    }

    /// Drops a `#` comment that is not inside quotes.
    static func stripComment(_ line: String) -> String {
        var quote: Character?
        for (offset, character) in line.enumerated() {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "#" {
                return String(line.prefix(offset))
            }
        }
        return line
    }

    /// The token from `token_file` (first line, trimmed), expanding a leading `~`.
    func token() throws -> String? {
        guard let tokenFile else { return nil }
        let path = tokenFile.hasPrefix("~/") ? NSHomeDirectory() + tokenFile.dropFirst(1) : tokenFile
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(path: path, line: 0, message: "token_file cannot be read")
        }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) }
    }
}

/// A configuration file problem, naming the file and line.
struct ConfigError: Error, CustomStringConvertible {
    var path: String
    var line: Int
    var message: String
    var description: String { line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)" }
}
