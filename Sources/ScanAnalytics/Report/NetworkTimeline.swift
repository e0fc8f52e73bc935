import Foundation

/// Each network's rates per UTC day, and how adaptive memory started that day's runs, for the HTML report.
///
/// The rates of a day are the `StatsSummary` of that network's runs grouped by day (the same
/// formulas as `bookscan stats --by day`); the adaptive starts are what each record says adaptive
/// memory chose for it (`adaptiveEventStream`, `adaptivePolling`, `probeSucceeded`), so they show the
/// verdict each day ran under.
package struct NetworkTimeline: Sendable, Equatable {
    /// How adaptive memory started one day's runs on one network.
    package struct AdaptiveStarts: Sendable, Equatable {
        /// Runs started at the event stream because the WebSocket was skipped.
        package var eventStreamFirst = 0
        /// Runs that polled because both streaming transports were skipped.
        package var polling = 0
        /// Background WebSocket probes that worked (each clears the WebSocket's verdict).
        package var probesSucceeded = 0

        /// The ladder start in words, or nil when every run started at the WebSocket.
        package var verdict: String? {
            if polling > 0 { return StrategyMemory.Preference.polling.rawValue }
            if eventStreamFirst > 0 { return StrategyMemory.Preference.eventStreamFirst.rawValue }
            return nil
        }
    }

    /// One network's runs.
    package struct Network: Sendable, Equatable {
        package var network: String
        package var runs: Int
        /// The day groups of `StatsSummary(records: this network's runs, groupedBy: .day)`, oldest first.
        package var days: [StatsSummary.Group]
        /// Adaptive starts per day key (days without any are absent).
        package var adaptive: [String: AdaptiveStarts]
        /// What adaptive memory remembers for this network now (`StatsSummary.networkVerdicts`), if anything.
        package var currentVerdict: String?
    }

    /// Every day with a run (UTC, `2026-11-18`), oldest first.
    package var days: [String]
    /// The networks, the one with most runs first.
    package var networks: [Network]

    package init(records: [AnalyticsRecord], verdicts: [String: String] = [:]) {
        days = Set(records.map { StatsSummary.key($0, .day) }).sorted()
        networks = Dictionary(grouping: records, by: \.network).map { network, runs in
            var adaptive: [String: AdaptiveStarts] = [:]
            for record in runs {
                let day = StatsSummary.key(record, .day)
                if record.adaptivePolling == true { adaptive[day, default: .init()].polling += 1 }
                if record.adaptiveEventStream == true { adaptive[day, default: .init()].eventStreamFirst += 1 }
                if record.probeSucceeded == true { adaptive[day, default: .init()].probesSucceeded += 1 }
            }
            return Network(
                network: network, runs: runs.count, days: StatsSummary(records: runs, skippedLines: 0, groupedBy: .day).groups,
                adaptive: adaptive, currentVerdict: verdicts[network])
        }.sorted { ($0.runs, $1.network) > ($1.runs, $0.network) }
    }
}
