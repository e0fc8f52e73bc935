import ArgumentParser
import ScanClient

/// Options shared by `scan` and `watch`: where the service is and how to follow jobs.
struct TrackingOptions: ParsableArguments {
    @Option(help: "Scan service URL (default: $BOOKSCAN_SERVER; with neither, an embedded service on loopback).")
    var server: String?
    @Option(help: "Bearer token (prefer the BOOKSCAN_TOKEN environment variable: it stays out of `ps`).")
    var token: String?
    @Option(help: "How to follow progress: auto (WebSocket, polling fallback), websocket, or polling.")
    var strategy: TrackerMode = .auto
    @Option(name: .customLong("poll-interval"), help: "Polling interval (e.g. 2s, 500ms).")
    var pollInterval = CommandDuration(argument: "2s")!
    @Option(help: "Stop watching after this long (e.g. 15m); the job keeps running on the server.")
    var timeout = CommandDuration(argument: "15m")!
    @Option(name: .customLong("silence-timeout"), help: "An open WebSocket silent this long counts as dead.")
    var silenceTimeout = CommandDuration(argument: "5s")!
    @Option(name: .customLong("cacert"), help: "PEM file of a private CA to trust for https/wss.")
    var caCertificate: String?

    var trackerSettings: TrackerSettings {
        TrackerSettings(pollInterval: pollInterval.duration, silenceTimeout: silenceTimeout.duration)
    }
}

extension TrackerMode: ExpressibleByArgument {}
