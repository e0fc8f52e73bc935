import ArgumentParser
import Foundation
import ScanClient

/// Options shared by `scan` and `watch`: where the service is and how to follow jobs.
struct TrackingOptions: ParsableArguments {
    @Option(help: "Scan service URL (default: $BOOKSCAN_SERVER; with neither, an embedded service on loopback).")
    var server: String?
    @Option(help: "Bearer token (prefer the BOOKSCAN_TOKEN environment variable: it stays out of `ps`).")
    var token: String?
    @Option(help: "How to follow progress: auto (WebSocket, polling fallback), websocket, or polling (default: auto).")
    var strategy: TrackerMode?
    @Option(
        name: .customLong("poll-interval"),
        help: "Polling interval (e.g. 2s, 500ms; default \(CommandDuration(TrackerSettings.defaultPollInterval)).")
    var pollInterval: CommandDuration?
    @Option(
        help: "Stop watching after this long (default \(CommandDuration(TrackerSettings.defaultRunTimeout))); the job keeps running on the server.")
    var timeout: CommandDuration?
    @Option(name: .customLong("silence-timeout"), help: "An open WebSocket silent this long counts as dead.")
    var silenceTimeout = CommandDuration(TrackerSettings.defaultSilenceTimeout)
    @Option(name: .customLong("cacert"), help: "PEM file of a private CA to trust for https/wss.")
    var caCertificate: String?

    /// Merges the command line, the environment and `config` (in that order of precedence).
    func resolve(with config: ConfigFile = .init()) throws -> ResolvedTracking {
        var resolved = ResolvedTracking()
        func duration(_ text: String?, _ name: String) throws -> CommandDuration? {
            guard let text else { return nil }
            guard let value = CommandDuration(argument: text) else { throw ValidationError("config \(name): '\(text)' is not a duration") }
            return value
        }
        let environment = ProcessInfo.processInfo.environment
        resolved.server = server ?? environment["BOOKSCAN_SERVER"].flatMap { $0.isEmpty ? nil : $0 } ?? config.server
        resolved.token = try token ?? environment["BOOKSCAN_TOKEN"].flatMap { $0.isEmpty ? nil : $0 } ?? config.token()
        if let text = config.strategy, strategy == nil, TrackerMode(rawValue: text) == nil {
            throw ValidationError("config strategy: '\(text)' is not auto, websocket or polling")
        }
        resolved.strategy = strategy ?? config.strategy.flatMap(TrackerMode.init(rawValue:)) ?? .auto
        resolved.pollInterval = try (pollInterval ?? duration(config.pollInterval, "poll_interval"))?.duration ?? TrackerSettings.defaultPollInterval
        resolved.timeout = try (timeout ?? duration(config.timeout, "timeout"))?.duration ?? TrackerSettings.defaultRunTimeout
        resolved.adaptiveFromConfig = config.adaptive ?? false
        resolved.silenceTimeout = silenceTimeout.duration
        if let caCertificate, !FileManager.default.isReadableFile(atPath: caCertificate) {
            let problem = FileManager.default.fileExists(atPath: caCertificate) ? "cannot be read" : "does not exist"
            throw ValidationError("--cacert \(caCertificate): \(problem)")
        }
        resolved.caCertificate = caCertificate
        return resolved
    }
}

/// Tracking settings after the command line, environment and config file are merged.
struct ResolvedTracking {
    var server: String?
    var token: String?
    var strategy: TrackerMode = .auto
    var pollInterval = TrackerSettings.defaultPollInterval
    var timeout = TrackerSettings.defaultRunTimeout
    var adaptiveFromConfig = false
    var silenceTimeout = TrackerSettings.defaultSilenceTimeout
    var caCertificate: String?

    var trackerSettings: TrackerSettings { TrackerSettings(pollInterval: pollInterval, silenceTimeout: silenceTimeout) }
}

extension TrackerMode: ExpressibleByArgument {}
