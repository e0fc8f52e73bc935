package import Foundation
package import RunModel

/// A client other than the CLI that reports its runs to the service's analytics log.
package enum AnalyticsClient: String, Codable, Sendable, Equatable {
    /// The web page of `bookscan serve`.
    case web
}

/// One line of the analytics log: how one job run went and which ProgressStrategy carried it.
/// The schema is `Analytics/analytics-record.schema.json` (version 2: Server-Sent Events; version 1
/// records still read); never holds tokens or raw addresses. How the run went over the network is the
/// run's `RunSummary`, embedded as the CLI's report has it and written flat (`record.polls`).
@dynamicMemberLookup
package struct AnalyticsRecord: Codable, Sendable, Equatable {
    package static let currentSchemaVersion = 2

    package var schemaVersion: Int
    package var timestamp: Date
    package var jobId: String?
    /// The command that ran the job: `scan`, `watch` or `batch`.
    package var command: String
    /// The client that ran it: absent for the CLI, `web` for the page `serve` answers at `/` (`POST /v1/analytics`).
    package var client: AnalyticsClient? = nil
    /// `outcome`: `succeeded, failed, canceled, timed_out, stopped, input_error, rejected, unreachable, unauthorized,
    /// job_lost, socket_unavailable`; `strategy`: `websocket, websocket_reconnected, sse, polling_fallback, polling`, nil
    /// when nothing was tracked; `fallbackFrom`: the streaming transport the carrying path fell back from (`websocket`
    /// for `sse`; `websocket` or `sse` for `polling_fallback`; absent in version 1 records, where it is always the
    /// WebSocket), the fallback reason, status and phase its first failure; the counters and timings.
    package var run: RunSummary
    /// Whether adaptive memory chose polling for this run.
    package var adaptivePolling: Bool?
    /// Whether adaptive memory started this run at the event stream (the WebSocket fails on this network).
    package var adaptiveEventStream: Bool?
    /// Result of the background WebSocket probe of an adaptive run.
    package var probeSucceeded: Bool?
    /// Event-stream (SSE) failures (absent in version 1 records).
    package var streamFailures: Int?
    /// PUTs sent for the job, retries and the resubmission included (absent when nothing was uploaded, and in older records).
    package var uploadAttempts: Int?
    /// 1 when the server lost the job (404, e.g. after a restart) and it was resubmitted with the same jobId and bytes.
    package var resubmissions: Int?
    package var spinesFound: Int?
    /// Hash of the network path (default route interface, gateway, gateway MAC, proxy settings).
    package var network: String
    /// Hash of the server's scheme, host and port (`embedded` for the in-process service).
    package var server: String
    package var bookscanVersion: String

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, timestamp, jobId, command, client, adaptivePolling, adaptiveEventStream, probeSucceeded, streamFailures
        case uploadAttempts, resubmissions, spinesFound, network, server, bookscanVersion
    }

    /// The record of a run: `run` as the CLI's report has it; `jobId` nil when nothing was submitted
    /// (then the upload counters are left out too).
    package init(
        run: RunSummary, jobId: UUID?, streamFailures: Int, uploadAttempts: Int, resubmissions: Int, spinesFound: Int?, command: String,
        network: String, server: String, version: String, timestamp: Date = Date(), adaptivePolling: Bool? = nil,
        adaptiveEventStream: Bool? = nil, probeSucceeded: Bool? = nil
    ) {
        schemaVersion = Self.currentSchemaVersion
        self.timestamp = timestamp
        self.jobId = jobId?.uuidString.lowercased()
        self.command = command
        self.run = run
        self.adaptivePolling = adaptivePolling
        self.adaptiveEventStream = adaptiveEventStream
        self.probeSucceeded = probeSucceeded
        self.streamFailures = streamFailures
        self.uploadAttempts = jobId == nil ? nil : uploadAttempts
        self.resubmissions = jobId == nil ? nil : resubmissions
        self.spinesFound = spinesFound
        self.network = network
        self.server = server
        bookscanVersion = version
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        schemaVersion = try c.decode(Int.self, forKey: .schemaVersion)
        timestamp = try c.decode(Date.self, forKey: .timestamp)
        jobId = try c.decodeIfPresent(String.self, forKey: .jobId)
        command = try c.decode(String.self, forKey: .command)
        client = try c.decodeIfPresent(AnalyticsClient.self, forKey: .client)
        run = try RunSummary(from: decoder)
        adaptivePolling = try c.decodeIfPresent(Bool.self, forKey: .adaptivePolling)
        adaptiveEventStream = try c.decodeIfPresent(Bool.self, forKey: .adaptiveEventStream)
        probeSucceeded = try c.decodeIfPresent(Bool.self, forKey: .probeSucceeded)
        streamFailures = try c.decodeIfPresent(Int.self, forKey: .streamFailures)
        uploadAttempts = try c.decodeIfPresent(Int.self, forKey: .uploadAttempts)
        resubmissions = try c.decodeIfPresent(Int.self, forKey: .resubmissions)
        spinesFound = try c.decodeIfPresent(Int.self, forKey: .spinesFound)
        network = try c.decode(String.self, forKey: .network)
        server = try c.decode(String.self, forKey: .server)
        bookscanVersion = try c.decode(String.self, forKey: .bookscanVersion)
    }

    package func encode(to encoder: any Encoder) throws {
        try run.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(schemaVersion, forKey: .schemaVersion)
        try c.encode(timestamp, forKey: .timestamp)
        try c.encodeIfPresent(jobId, forKey: .jobId)
        try c.encode(command, forKey: .command)
        try c.encodeIfPresent(client, forKey: .client)
        try c.encodeIfPresent(adaptivePolling, forKey: .adaptivePolling)
        try c.encodeIfPresent(adaptiveEventStream, forKey: .adaptiveEventStream)
        try c.encodeIfPresent(probeSucceeded, forKey: .probeSucceeded)
        try c.encodeIfPresent(streamFailures, forKey: .streamFailures)
        try c.encodeIfPresent(uploadAttempts, forKey: .uploadAttempts)
        try c.encodeIfPresent(resubmissions, forKey: .resubmissions)
        try c.encodeIfPresent(spinesFound, forKey: .spinesFound)
        try c.encode(network, forKey: .network)
        try c.encode(server, forKey: .server)
        try c.encode(bookscanVersion, forKey: .bookscanVersion)
    }

    /// The run summary's fields, read and written as the record's own.
    package subscript<Value>(dynamicMember field: WritableKeyPath<RunSummary, Value>) -> Value {
        get { run[keyPath: field] }
        set { run[keyPath: field] = newValue }
    }

    /// Whether this run tried the WebSocket at all: it was classified as carried by it or as
    /// falling back from it (to the event stream or to polling), or `--strategy websocket` could not
    /// get it to carry the job. A run that adaptive memory started at the event stream did not.
    package var triedWebSocket: Bool {
        if adaptiveEventStream == true { return false }
        return (run.strategy?.isWebSocket ?? false) || (run.strategy == .sse && run.fallbackFrom == .websocket)
            || run.strategy == .pollingFallback
            || (run.outcome == .socketUnavailable && (streamFailures ?? 0) == 0)
    }
    /// Whether this run tried the event stream: it carried the end, or polling fell back from it.
    package var triedEventStream: Bool { run.strategy == .sse || (run.strategy == .pollingFallback && run.fallbackFrom == .sse) }
    /// Whether the event stream carried the job to its end.
    package var eventStreamCarried: Bool { run.strategy == .sse && reachedEnd }
    /// Whether the WebSocket failed in this run (polling from the event stream means it failed first,
    /// unless adaptive memory skipped it).
    package var webSocketFailed: Bool {
        guard adaptiveEventStream != true else { return false }
        return (run.strategy == .sse && run.fallbackFrom == .websocket) || run.strategy == .pollingFallback
    }
    /// Whether the job reached its end (succeeded, failed or canceled on the server).
    package var reachedEnd: Bool { [.succeeded, .failed, .canceled].contains(run.outcome) }
    /// Whether the WebSocket carried the job to its end.
    package var webSocketCarried: Bool { (run.strategy?.isWebSocket ?? false) && reachedEnd }
    /// Whether a job was submitted and followed (the upload was accepted, or a path carried it).
    package var wasTracked: Bool { run.strategy != nil || run.uploadSeconds != nil }
    /// Whether the run stopped watching before the job ended (timed out or interrupted): such a run
    /// says nothing about completion or about the WebSocket, so the rates leave it out.
    package var stoppedWatching: Bool { run.outcome == .timedOut || run.outcome == .stopped }
}
