import Foundation
import ScanClient

/// A client other than the CLI that reports its runs to the service's analytics log.
public enum AnalyticsClient: String, Codable, Sendable, Equatable {
    /// The web page of `bookscan serve`.
    case web
}

/// One line of the analytics log: how one job run went and which ProgressStrategy carried it.
/// The schema is `Analytics/analytics-record.schema.json` (version 2: Server-Sent Events; version 1
/// records still read); never holds tokens or raw addresses.
public struct AnalyticsRecord: Codable, Sendable, Equatable {
    public static let currentSchemaVersion = 2

    public var schemaVersion: Int
    public var timestamp: Date
    public var jobId: String?
    /// The command that ran the job: `scan`, `watch` or `batch`.
    public var command: String
    /// The client that ran it: absent for the CLI, `web` for the page `serve` answers at `/` (`POST /v1/analytics`).
    public var client: AnalyticsClient? = nil
    /// `succeeded, failed, canceled, timed_out, stopped, input_error, rejected, unreachable, unauthorized, job_lost, socket_unavailable`.
    public var outcome: RunOutcome
    /// `websocket, websocket_reconnected, sse, polling_fallback, polling`; nil when nothing was tracked.
    public var strategy: StrategyName?
    /// The streaming transport the carrying path fell back from (`websocket` for `sse`; `websocket` or
    /// `sse` for `polling_fallback`); the fallback reason, status and phase are its first failure.
    /// Absent in version 1 records, where it is always the WebSocket.
    public var fallbackFrom: StreamTransport?
    public var fallbackReason: SocketFailureReason?
    public var fallbackStatus: Int?
    public var fallbackPhase: FallbackPhase?
    /// Whether adaptive memory chose polling for this run.
    public var adaptivePolling: Bool?
    /// Whether adaptive memory started this run at the event stream (the WebSocket fails on this network).
    public var adaptiveEventStream: Bool?
    /// Result of the background WebSocket probe of an adaptive run.
    public var probeSucceeded: Bool?
    public var reconnects: Int
    public var socketFailures: Int
    /// Event-stream (SSE) failures (absent in version 1 records).
    public var streamFailures: Int?
    public var polls: Int
    public var eventsByPath: [String: Int]
    public var uploadSeconds: Double?
    public var firstEventSeconds: Double?
    public var totalSeconds: Double
    public var bytesUp: Int?
    /// PUTs sent for the job, retries and the resubmission included (absent when nothing was uploaded, and in older records).
    public var uploadAttempts: Int?
    /// 1 when the server lost the job (404, e.g. after a restart) and it was resubmitted with the same jobId and bytes.
    public var resubmissions: Int?
    public var spinesFound: Int?
    /// Hash of the network path (default route interface, gateway, gateway MAC, proxy settings).
    public var network: String
    /// Hash of the server's scheme, host and port (`embedded` for the in-process service).
    public var server: String
    public var bookscanVersion: String

    public init(
        report: ScanReport, command: String, network: String, server: String, version: String, timestamp: Date = Date(),
        adaptivePolling: Bool? = nil, adaptiveEventStream: Bool? = nil, probeSucceeded: Bool? = nil
    ) {
        schemaVersion = Self.currentSchemaVersion
        self.timestamp = timestamp
        jobId = report.jobId?.uuidString.lowercased()
        self.command = command
        outcome = report.outcome
        strategy = report.strategy
        fallbackFrom = report.fallbackFrom
        fallbackReason = report.fallbackReason
        fallbackStatus = report.fallbackStatus
        fallbackPhase = report.fallbackPhase
        self.adaptivePolling = adaptivePolling
        self.adaptiveEventStream = adaptiveEventStream
        self.probeSucceeded = probeSucceeded
        reconnects = report.reconnects
        socketFailures = report.socketFailures
        streamFailures = report.streamFailures
        polls = report.polls
        eventsByPath = report.eventsByPath
        uploadSeconds = report.uploadSeconds
        firstEventSeconds = report.firstEventSeconds
        totalSeconds = report.totalSeconds
        bytesUp = report.bytesUp
        uploadAttempts = report.jobId == nil ? nil : report.uploadAttempts
        resubmissions = report.jobId == nil ? nil : report.resubmissions
        spinesFound = report.spineCount
        self.network = network
        self.server = server
        bookscanVersion = version
    }

    /// Whether this run tried the WebSocket at all: it was classified as carried by it or as
    /// falling back from it (to the event stream or to polling), or `--strategy websocket` could not
    /// get it to carry the job. A run that adaptive memory started at the event stream did not.
    public var triedWebSocket: Bool {
        if adaptiveEventStream == true { return false }
        return (strategy?.isWebSocket ?? false) || (strategy == .sse && fallbackFrom == .websocket) || strategy == .pollingFallback
            || (outcome == .socketUnavailable && (streamFailures ?? 0) == 0)
    }
    /// Whether this run tried the event stream: it carried the end, or polling fell back from it.
    public var triedEventStream: Bool { strategy == .sse || (strategy == .pollingFallback && fallbackFrom == .sse) }
    /// Whether the event stream carried the job to its end.
    public var eventStreamCarried: Bool { strategy == .sse && reachedEnd }
    /// Whether the WebSocket failed in this run (polling from the event stream means it failed first,
    /// unless adaptive memory skipped it).
    public var webSocketFailed: Bool {
        guard adaptiveEventStream != true else { return false }
        return (strategy == .sse && fallbackFrom == .websocket) || strategy == .pollingFallback
    }
    /// Whether the job reached its end (succeeded, failed or canceled on the server).
    public var reachedEnd: Bool { [.succeeded, .failed, .canceled].contains(outcome) }
    /// Whether the WebSocket carried the job to its end.
    public var webSocketCarried: Bool { (strategy?.isWebSocket ?? false) && reachedEnd }
    /// Whether a job was submitted and followed (the upload was accepted, or a path carried it).
    public var wasTracked: Bool { strategy != nil || uploadSeconds != nil }
    /// Whether the run stopped watching before the job ended (timed out or interrupted): such a run
    /// says nothing about completion or about the WebSocket, so the rates leave it out.
    public var stoppedWatching: Bool { outcome == .timedOut || outcome == .stopped }
}
