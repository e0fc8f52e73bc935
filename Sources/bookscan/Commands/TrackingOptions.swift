import ArgumentParser
import Foundation
import ScanAnalytics
import ScanClient

/// Options shared by `scan`, `batch` and `watch`, defined once: where the service is, how to follow
/// jobs, and what the run teaches the analytics log and the adaptive memory.
struct TrackingOptions: ParsableArguments {
    @Option(help: "Scan service URL (default: $BOOKSCAN_SERVER; with neither, an embedded service on loopback).")
    var server: String?
    @Option(help: "Bearer token (prefer the BOOKSCAN_TOKEN environment variable: it stays out of `ps`).")
    var token: String?
    @Option(help: "How to follow progress: auto (WebSocket, then SSE, then polling), websocket, sse, or polling (default: auto).")
    var strategy: TrackerMode?
    @Option(
        name: .customLong("poll-interval"),
        help: "Polling interval (e.g. 2s, 500ms; default \(CommandDuration(TrackerSettings.defaultPollInterval)).")
    var pollInterval: CommandDuration?
    @Option(
        help: "Stop watching after this long (default \(CommandDuration(TrackerSettings.defaultRunTimeout))); the job keeps running on the server.")
    var timeout: CommandDuration?
    @Option(name: .customLong("silence-timeout"), help: "An open WebSocket or event stream silent this long counts as dead.")
    var silenceTimeout = CommandDuration(TrackerSettings.defaultSilenceTimeout)
    @Option(name: .customLong("cacert"), help: "PEM file of a private CA to trust for https/wss.")
    var caCertificate: String?
    @Flag(help: "Remember per network whether the WebSocket works, and poll where it does not (config: adaptive).")
    var adaptive = false
    @Option(name: .customLong("analytics-log"), help: "Analytics log (default: $BOOKSCAN_ANALYTICS_LOG or $XDG_STATE_HOME/bookscan/analytics.jsonl).")
    var analyticsLog: String?
    @Flag(name: .customLong("no-analytics"), help: "Do not append to the analytics log.")
    var noAnalytics = false
    @Option(
        name: .customLong("analytics-keep"),
        help: "Rotated analytics files to keep (0…\(AnalyticsLog.maximumKeep); default \(AnalyticsLog.defaultKeep); config: analytics_keep).")
    var analyticsKeep: Int?

    /// The shortest `--poll-interval` accepted: anything shorter is a busy loop against the server.
    static let minimumPollInterval: Duration = .milliseconds(100)

    /// Merges the command line, the environment and `config` (in that order of precedence).
    func resolve(with config: ConfigFile = .init()) throws -> ResolvedTracking {
        var resolved = ResolvedTracking()
        func duration(_ text: String?, _ name: String) throws -> CommandDuration? {
            guard let text else { return nil }
            guard let value = CommandDuration(argument: text) else { throw ValidationError("config \(name): '\(text)' is not a duration") }
            return value
        }
        let environment = EnvironmentSettings()
        resolved.server = server ?? environment.server ?? config.server
        resolved.token = try token ?? environment.token ?? config.token()
        if let text = config.strategy, strategy == nil, TrackerMode(rawValue: text) == nil {
            throw ValidationError("config strategy: '\(text)' is not \(TrackerMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        resolved.strategy = strategy ?? config.strategy.flatMap(TrackerMode.init(rawValue:)) ?? .auto
        resolved.pollInterval = try (pollInterval ?? duration(config.pollInterval, "poll_interval"))?.duration ?? TrackerSettings.defaultPollInterval
        resolved.timeout = try (timeout ?? duration(config.timeout, "timeout"))?.duration ?? TrackerSettings.defaultRunTimeout
        guard resolved.pollInterval >= Self.minimumPollInterval else {
            throw ValidationError(
                "--poll-interval \(CommandDuration(resolved.pollInterval)) is too short: polling more often than every "
                    + "\(CommandDuration(Self.minimumPollInterval)) only loads the server")
        }
        guard resolved.timeout > .zero else { throw ValidationError("--timeout must be positive") }
        resolved.adaptive = adaptive || (config.adaptive ?? false)
        resolved.analyticsDisabled = noAnalytics
        resolved.analyticsLog = analyticsLog
        if let analyticsKeep, !(0...AnalyticsLog.maximumKeep).contains(analyticsKeep) {
            throw ValidationError("--analytics-keep must be 0…\(AnalyticsLog.maximumKeep)")
        }
        resolved.analyticsKeep = analyticsKeep ?? config.analyticsKeep ?? AnalyticsLog.defaultKeep
        guard silenceTimeout.duration > .zero else { throw ValidationError("--silence-timeout must be positive") }
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
    /// `--adaptive` or config `adaptive = true`.
    var adaptive = false
    var analyticsDisabled = false
    var analyticsLog: String?
    var analyticsKeep = AnalyticsLog.defaultKeep
    var silenceTimeout = TrackerSettings.defaultSilenceTimeout
    var caCertificate: String?

    var trackerSettings: TrackerSettings { TrackerSettings(pollInterval: pollInterval, silenceTimeout: silenceTimeout) }
}

extension TrackerMode: ExpressibleByArgument {}
