import ScanClient
import Foundation

/// Per (network, server) memory of whether the WebSocket works, learned from run outcomes: after 2
/// consecutive WebSocket failures that were not the server's fault, prefer polling for 7 days; one
/// WebSocket success (a normal run or a background probe) clears the verdict. Stored as JSON in the
/// state directory, written atomically (temp file + rename) under a lock; a corrupt file is ignored
/// with a warning and rebuilt.
public struct StrategyMemory: Sendable {
    /// What is remembered for one (network, server).
    public struct Entry: Codable, Sendable, Equatable {
        public var network: String
        public var server: String
        public var consecutiveFailures: Int
        public var preferPollingUntil: Date?
        public var lastReason: String?
        public var updatedAt: Date

        public init(network: String, server: String, consecutiveFailures: Int, preferPollingUntil: Date? = nil, lastReason: String? = nil, updatedAt: Date) {
            self.network = network
            self.server = server
            self.consecutiveFailures = consecutiveFailures
            self.preferPollingUntil = preferPollingUntil
            self.lastReason = lastReason
            self.updatedAt = updatedAt
        }
    }

    struct File: Codable {
        var version = 1
        var entries: [String: Entry] = [:]
    }

    public static let failuresToPreferPolling = 2
    public static let verdictLifetime: TimeInterval = 7 * 24 * 3600

    public let path: String

    public init(path: String) {
        self.path = path
    }

    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        StateDirectory.path(environment: environment) + "/strategy-memory.json"
    }

    /// Whether polling is preferred now for this network and server.
    public func prefersPolling(network: String, server: String, now: Date = Date()) -> Bool {
        guard let until = load().file.entries[Self.key(network, server)]?.preferPollingUntil else { return false }
        return until > now
    }

    /// Learns from one run's record; returns the entry after the update (nil when the record says nothing about the WebSocket).
    @discardableResult
    public func learn(from record: AnalyticsRecord, now: Date = Date()) throws -> Entry? {
        let success = record.webSocketCarried || record.probeSucceeded == true
        let failure = record.strategy == .pollingFallback && !Self.isServerFault(record)
        guard success || failure else { return nil }
        return try update(network: record.network, server: record.server, now: now) { entry in
            if success {
                entry.consecutiveFailures = 0
                entry.preferPollingUntil = nil
                entry.lastReason = nil
            } else {
                entry.consecutiveFailures += 1
                entry.lastReason = record.fallbackReason?.rawValue
                if entry.consecutiveFailures >= Self.failuresToPreferPolling {
                    entry.preferPollingUntil = now.addingTimeInterval(Self.verdictLifetime)
                }
            }
        }
    }

    /// A 5xx (including 503) from the server is the server's fault, not the network's.
    static func isServerFault(_ record: AnalyticsRecord) -> Bool {
        if let status = record.fallbackStatus, (500..<600).contains(status) { return true }
        return false
    }

    /// All live entries (expired verdicts are dropped), and a warning when the file was corrupt.
    public func entries(now: Date = Date()) -> (entries: [Entry], warning: String?) {
        let (file, warning) = load()
        let live = file.entries.values.map { entry in
            var entry = entry
            if let until = entry.preferPollingUntil, until <= now { entry.preferPollingUntil = nil }
            return entry
        }
        return (live.sorted { ($0.network, $0.server) < ($1.network, $1.server) }, warning)
    }

    /// Forgets everything, or one network.
    @discardableResult
    public func forget(network: String? = nil) throws -> Int {
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
                if let until = entry.preferPollingUntil, until <= now, entry.consecutiveFailures >= Self.failuresToPreferPolling {
                    file.entries.removeValue(forKey: key)  // an expired verdict is dropped
                }
            }
            let key = Self.key(network, server)
            var entry = file.entries[key] ?? Entry(network: network, server: server, consecutiveFailures: 0, updatedAt: now)
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

    private func save(_ file: File) throws {
        let data = try JSONEncoder.memory.encode(file)
        let temporary = path + ".tmp-\(getpid())"
        try data.write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, path) == 0 else { throw AnalyticsError.cannotOpen(path, errno) }
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
