import RunModel
package import Foundation

/// Per (network, server) memory of which streaming transport works, learned from run outcomes, for
/// each of the WebSocket and the event stream (SSE): after 2 consecutive failures of a transport that
/// were not the server's fault, skip it for 7 days; one success (a normal run, or for the WebSocket a
/// background probe) clears its verdict. The ladder then starts at the first transport not skipped:
/// WebSocket, event stream, polling. Stored as JSON in the state directory, written atomically (temp
/// file + rename) under a lock; a corrupt file is ignored with a warning and rebuilt.
package struct StrategyMemory: Sendable {
    /// What is remembered about one transport.
    package struct Verdict: Codable, Sendable, Equatable {
        package var consecutiveFailures: Int
        /// Skip the transport until then.
        package var avoidUntil: Date?
        package var lastReason: String?

        package init(consecutiveFailures: Int = 0, avoidUntil: Date? = nil, lastReason: String? = nil) {
            self.consecutiveFailures = consecutiveFailures
            self.avoidUntil = avoidUntil
            self.lastReason = lastReason
        }

        func avoids(at now: Date) -> Bool { avoidUntil.map { $0 > now } ?? false }
    }

    /// What is remembered for one (network, server).
    package struct Entry: Codable, Sendable, Equatable {
        package var network: String
        package var server: String
        package var webSocket: Verdict
        package var eventStream: Verdict
        package var updatedAt: Date

        package init(network: String, server: String, webSocket: Verdict = .init(), eventStream: Verdict = .init(), updatedAt: Date) {
            self.network = network
            self.server = server
            self.webSocket = webSocket
            self.eventStream = eventStream
            self.updatedAt = updatedAt
        }

        private enum CodingKeys: String, CodingKey { case network, server, webSocket, eventStream, updatedAt }
        /// Version 1 kept only the WebSocket's verdict, flat in the entry.
        private enum VersionOneKeys: String, CodingKey { case consecutiveFailures, preferPollingUntil, lastReason }

        package init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            network = try c.decode(String.self, forKey: .network)
            server = try c.decode(String.self, forKey: .server)
            updatedAt = try c.decode(Date.self, forKey: .updatedAt)
            eventStream = try c.decodeIfPresent(Verdict.self, forKey: .eventStream) ?? Verdict()
            if let webSocket = try c.decodeIfPresent(Verdict.self, forKey: .webSocket) {
                self.webSocket = webSocket
            } else {
                let old = try decoder.container(keyedBy: VersionOneKeys.self)
                webSocket = Verdict(
                    consecutiveFailures: try old.decodeIfPresent(Int.self, forKey: .consecutiveFailures) ?? 0,
                    avoidUntil: try old.decodeIfPresent(Date.self, forKey: .preferPollingUntil),
                    lastReason: try old.decodeIfPresent(String.self, forKey: .lastReason))
            }
        }

        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(network, forKey: .network)
            try c.encode(server, forKey: .server)
            try c.encode(webSocket, forKey: .webSocket)
            try c.encode(eventStream, forKey: .eventStream)
            try c.encode(updatedAt, forKey: .updatedAt)
        }

        /// Where the ladder starts on this network now.
        package func preference(at now: Date) -> Preference {
            guard webSocket.avoids(at: now) else { return .ladder }
            return eventStream.avoids(at: now) ? .polling : .eventStreamFirst
        }

        /// The verdict in words (`memory show`, `stats --by network`).
        package func describe(at now: Date) -> String {
            func part(_ name: String, _ verdict: Verdict) -> String {
                if let until = verdict.avoidUntil, until > now { return "\(name) skipped until \(until.formatted(.iso8601))" }
                let failures = verdict.consecutiveFailures
                return failures > 0 ? "\(name) ok (\(failures) recent failure\(failures == 1 ? "" : "s"))" : "\(name) ok"
            }
            return part("WebSocket", webSocket) + ", " + part("SSE", eventStream) + " → " + preference(at: now).rawValue
        }
    }

    /// Where a run's ladder starts.
    package enum Preference: String, Sendable {
        /// WebSocket, then the event stream, then polling.
        case ladder = "websocket first"
        /// The WebSocket fails here: the event stream, then polling.
        case eventStreamFirst = "sse first"
        /// Both streaming transports fail here: polling.
        case polling = "polling"
    }

    struct File: Codable {
        var version = 2
        var entries: [String: Entry] = [:]
    }

    package static let failuresToAvoid = 2
    package static let verdictLifetime: TimeInterval = 7 * 24 * 3600

    package let path: String

    package init(path: String) {
        self.path = path
    }

    package static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        StateDirectory.path(environment: environment) + "/strategy-memory.json"
    }

    /// Where the ladder starts now for this network and server.
    package func preference(network: String, server: String, now: Date = Date()) -> Preference {
        load().file.entries[Self.key(network, server)]?.preference(at: now) ?? .ladder
    }

    /// Learns from one run's record; returns the entry after the update (nil when the record says
    /// nothing about either streaming transport).
    @discardableResult
    package func learn(from record: AnalyticsRecord, now: Date = Date()) throws -> Entry? {
        let serverFault = Self.isServerFault(record)
        let webSocket: Bool? =
            record.webSocketCarried || record.probeSucceeded == true ? true : (record.webSocketFailed && !serverFault ? false : nil)
        let eventStream: Bool? =
            record.eventStreamCarried
            ? true : (record.strategy == .pollingFallback && record.fallbackFrom == .sse && !serverFault ? false : nil)
        guard webSocket != nil || eventStream != nil else { return nil }
        let reason = record.fallbackReason?.rawValue
        return try update(network: record.network, server: record.server, now: now) { entry in
            if let webSocket { Self.learn(&entry.webSocket, success: webSocket, reason: record.fallbackFrom == .sse ? nil : reason, now: now) }
            if let eventStream { Self.learn(&entry.eventStream, success: eventStream, reason: reason, now: now) }
        }
    }

    private static func learn(_ verdict: inout Verdict, success: Bool, reason: String?, now: Date) {
        if success {
            verdict = Verdict()
            return
        }
        verdict.consecutiveFailures += 1
        verdict.lastReason = reason ?? verdict.lastReason
        if verdict.consecutiveFailures >= failuresToAvoid { verdict.avoidUntil = now.addingTimeInterval(verdictLifetime) }
    }

    /// A 5xx (including 503) from the server is the server's fault, not the network's.
    static func isServerFault(_ record: AnalyticsRecord) -> Bool {
        if let status = record.fallbackStatus, (500..<600).contains(status) { return true }
        return false
    }

    /// All live entries (expired verdicts are dropped), and a warning when the file was corrupt.
    package func entries(now: Date = Date()) -> (entries: [Entry], warning: String?) {
        let (file, warning) = load()
        let live = file.entries.values.map { entry in
            var entry = entry
            for path in [\Entry.webSocket, \Entry.eventStream] where !entry[keyPath: path].avoids(at: now) {
                entry[keyPath: path].avoidUntil = nil
            }
            return entry
        }
        return (live.sorted { ($0.network, $0.server) < ($1.network, $1.server) }, warning)
    }

    /// Forgets everything, or one network.
    @discardableResult
    package func forget(network: String? = nil) throws -> Int {
        try FileLock.withLock(path + ".lock") {
            var file = load().file
            let before = file.entries.count
            if let network { file.entries = file.entries.filter { $0.value.network != network } } else { file.entries.removeAll() }
            try save(file)
            return before - file.entries.count
        }
    }

    private func update(network: String, server: String, now: Date, _ change: (inout Entry) -> Void) throws -> Entry {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        return try FileLock.withLock(path + ".lock") {
            var file = load().file
            for (key, entry) in file.entries {
                for path in [\Entry.webSocket, \Entry.eventStream] {
                    if let until = entry[keyPath: path].avoidUntil, until <= now {
                        file.entries[key]?[keyPath: path] = Verdict()  // an expired verdict is dropped
                    }
                }
            }
            let key = Self.key(network, server)
            var entry = file.entries[key] ?? Entry(network: network, server: server, updatedAt: now)
            change(&entry)
            entry.updatedAt = now
            file.entries[key] = entry
            try save(file)
            return entry
        }
    }

    private func load() -> (file: File, warning: String?) {
        guard let data = FileManager.default.contents(atPath: path) else { return (File(), nil) }
        do {
            return (try JSONDecoder.memory.decode(File.self, from: data), nil)
        } catch {
            return (File(), "ignoring the corrupt strategy memory at \(path); it will be rebuilt")
        }
    }

    /// Written as reports are (`ReportFile`): a temporary file fsynced, renamed over the memory, the folder fsynced.
    private func save(_ file: File) throws {
        let data = try JSONEncoder.memory.encode(file)
        try ReportFile.write(bytes: [UInt8](data), to: path)
    }

    static func key(_ network: String, _ server: String) -> String { network + "|" + server }
}

extension JSONEncoder {
    static var memory: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }
}

extension JSONDecoder {
    static var memory: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
