import RunModel
package import Foundation

/// How records are grouped by `bookscan stats --by`.
package enum StatsGrouping: String, Codable, Sendable, CaseIterable {
    case strategy, network, day, server
}

/// The success-rate summary `bookscan stats` prints; the formulas are documented in `Analytics/README.md`.
package struct StatsSummary: Codable, Sendable, Equatable {
    /// Targets the rates are judged against.
    package static let webSocketTarget = 0.95
    package static let fallbackTarget = 0.05
    package static let completionTarget = 0.99

    package struct Rate: Codable, Sendable, Equatable {
        package var numerator: Int
        package var denominator: Int
        /// nil when the denominator is 0.
        package var value: Double?
        package var target: Double
        /// Whether the target is met (`value ≥ target`, or `< target` for the fallback rate); nil without data.
        package var met: Bool?

        init(_ numerator: Int, _ denominator: Int, target: Double, lowerIsBetter: Bool = false) {
            self.numerator = numerator
            self.denominator = denominator
            self.target = target
            value = denominator > 0 ? Double(numerator) / Double(denominator) : nil
            met = value.map { lowerIsBetter ? $0 < target : $0 >= target }
        }
    }

    package struct Timing: Codable, Sendable, Equatable {
        package var count: Int
        package var p50: Double?
        package var p95: Double?
    }

    package struct Group: Codable, Sendable, Equatable {
        package var key: String
        package var runs: Int
        package var completion: Rate
        package var webSocketSuccess: Rate
        package var eventStreamSuccess: Rate
        package var pollingFallback: Rate
        /// The adaptive-memory verdict for a network group, when asked for.
        package var verdict: String?
    }

    package var runs: Int
    package var skippedLines: Int
    package var completion: Rate
    package var webSocketSuccess: Rate
    /// Runs the event stream (SSE) carried to their end / runs that tried it.
    package var eventStreamSuccess: Rate
    package var pollingFallback: Rate
    /// Tracked runs that stopped watching before the job ended, kept out of every rate.
    package var timedOut: Int
    package var interrupted: Int
    /// Seconds from upload accepted to first event, per strategy.
    package var firstEvent: [String: Timing]
    /// Total seconds per strategy.
    package var total: [String: Timing]
    /// Fallback reasons (`reason` or `refused 503`, with the phase) and how often.
    package var fallbackReasons: [String: Int]
    package var groupedBy: StatsGrouping
    package var groups: [Group]

    /// Computes every number from the records.
    ///
    /// - completion = runs that succeeded / runs whose job was submitted and followed
    /// - WebSocket success = runs where the WebSocket carried the job to its end / runs that tried it
    /// - SSE success = runs where the event stream carried the job to its end / runs that tried it
    /// - polling fallback = `polling_fallback` runs / runs that tried the WebSocket or the event stream
    ///
    /// Runs that timed out or were interrupted are in no denominator (counted on their own).
    package init(records: [AnalyticsRecord], skippedLines: Int, groupedBy: StatsGrouping, verdicts: [String: String] = [:]) {
        runs = records.count
        self.skippedLines = skippedLines
        (completion, webSocketSuccess, eventStreamSuccess, pollingFallback) = Self.rates(records)
        timedOut = records.filter { $0.wasTracked && $0.outcome == .timedOut }.count
        interrupted = records.filter { $0.wasTracked && $0.outcome == .stopped }.count
        var firstEvent: [String: Timing] = [:]
        var total: [String: Timing] = [:]
        for (strategy, group) in Dictionary(grouping: records.filter(\.wasTracked), by: { $0.strategy?.rawValue ?? "none" }) {
            firstEvent[strategy] = Self.timing(group.compactMap(\.firstEventSeconds))
            total[strategy] = Self.timing(group.filter { $0.outcome == .succeeded }.map(\.totalSeconds))
        }
        self.firstEvent = firstEvent
        self.total = total
        var reasons: [String: Int] = [:]
        for record in records where record.strategy == .pollingFallback || (record.strategy == .sse && record.fallbackFrom != nil) {
            var reason = record.fallbackReason?.rawValue ?? "unknown"
            if record.strategy == .sse {
                reason = "to sse: " + reason
            } else if record.fallbackFrom == .sse {
                reason = "sse " + reason
            }
            if let status = record.fallbackStatus { reason += " \(status)" }
            if let phase = record.fallbackPhase { reason += " (\(phase.rawValue.replacingOccurrences(of: "_", with: " ")))" }
            reasons[reason, default: 0] += 1
        }
        fallbackReasons = reasons
        self.groupedBy = groupedBy
        groups = Dictionary(grouping: records, by: { Self.key($0, groupedBy) }).map { key, group in
            let (completion, webSocket, eventStream, fallback) = Self.rates(group)
            return Group(
                key: key, runs: group.count, completion: completion, webSocketSuccess: webSocket, eventStreamSuccess: eventStream,
                pollingFallback: fallback,
                verdict: groupedBy == .network ? verdicts[key] : nil)
        }.sorted { $0.key < $1.key }
    }

    static func rates(_ records: [AnalyticsRecord]) -> (completion: Rate, webSocket: Rate, eventStream: Rate, fallback: Rate) {
        let tracked = records.filter { $0.wasTracked && !$0.stoppedWatching }
        let tried = records.filter { $0.triedWebSocket && !$0.stoppedWatching }
        let triedStream = records.filter { $0.triedEventStream && !$0.stoppedWatching }
        let streamed = records.filter { ($0.triedWebSocket || $0.triedEventStream) && !$0.stoppedWatching }
        return (
            Rate(tracked.filter { $0.outcome == .succeeded }.count, tracked.count, target: completionTarget),
            Rate(tried.filter(\.webSocketCarried).count, tried.count, target: webSocketTarget),
            Rate(triedStream.filter(\.eventStreamCarried).count, triedStream.count, target: webSocketTarget),
            Rate(streamed.filter { $0.strategy == .pollingFallback }.count, streamed.count, target: fallbackTarget, lowerIsBetter: true)
        )
    }

    /// The adaptive-memory verdict per network for `--by network`: one server's verdict never
    /// replaces another's on the same network (each is named by its server when there are several).
    package static func networkVerdicts(_ entries: [StrategyMemory.Entry], now: Date = Date()) -> [String: String] {
        Dictionary(grouping: entries, by: \.network).mapValues { group in
            func verdict(_ entry: StrategyMemory.Entry) -> String { entry.describe(at: now) }
            let sorted = group.sorted { $0.server < $1.server }
            if sorted.count == 1, let only = sorted.first { return verdict(only) }
            return sorted.map { "server \($0.server): \(verdict($0))" }.joined(separator: "; ")
        }
    }

    static func key(_ record: AnalyticsRecord, _ grouping: StatsGrouping) -> String {
        switch grouping {
        case .strategy: record.strategy?.rawValue ?? "untracked"
        case .network: record.network
        case .server: record.server
        case .day: String(record.timestamp.formatted(.iso8601.year().month().day()))
        }
    }

    /// Nearest-rank percentiles.
    static func timing(_ values: [Double]) -> Timing {
        let sorted = values.sorted()
        func percentile(_ p: Double) -> Double? {
            guard !sorted.isEmpty else { return nil }
            let rank = Int((p * Double(sorted.count)).rounded(.up))
            return sorted[max(0, min(sorted.count - 1, rank - 1))]
        }
        return Timing(count: sorted.count, p50: percentile(0.5), p95: percentile(0.95))
    }
}
