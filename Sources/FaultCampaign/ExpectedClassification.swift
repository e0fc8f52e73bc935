import ScanAnalytics

/// The analytics classification a job must end up with, given the fault injected into it.
public struct ExpectedClassification: Sendable, Codable, Equatable, CustomStringConvertible {
    public var strategy: String
    public var fallbackReason: String?
    public var fallbackStatus: Int?
    public var fallbackPhase: String?
    /// Socket failures the record must show at least (a reconnected run failed at least once).
    public var minimumSocketFailures: Int

    public init(strategy: String, fallbackReason: String? = nil, fallbackStatus: Int? = nil, fallbackPhase: String? = nil, minimumSocketFailures: Int = 0) {
        self.strategy = strategy
        self.fallbackReason = fallbackReason
        self.fallbackStatus = fallbackStatus
        self.fallbackPhase = fallbackPhase
        self.minimumSocketFailures = minimumSocketFailures
    }

    public static let websocket = ExpectedClassification(strategy: "websocket")
    public static let reconnected = ExpectedClassification(strategy: "websocket_reconnected", minimumSocketFailures: 1)
    public static let polling = ExpectedClassification(strategy: "polling")

    /// A polling fallback before any event, for this reason (and status of a refused upgrade).
    public static func fallback(_ reason: String, status: Int? = nil) -> ExpectedClassification {
        ExpectedClassification(
            strategy: "polling_fallback", fallbackReason: reason, fallbackStatus: status, fallbackPhase: "before_first_event",
            minimumSocketFailures: 0)
    }

    public var description: String {
        [strategy, fallbackReason, fallbackStatus.map(String.init), fallbackPhase].compactMap { $0 }.joined(separator: "/")
    }

    /// What the record got, in the same notation.
    public static func describe(_ record: AnalyticsRecord) -> String {
        [record.strategy ?? "-", record.fallbackReason, record.fallbackStatus.map(String.init), record.fallbackPhase].compactMap { $0 }
            .joined(separator: "/")
    }

    /// Every way the record differs from the expectation; empty when it matches.
    public func mismatches(_ record: AnalyticsRecord) -> [String] {
        var problems: [String] = []
        if record.strategy != strategy || record.fallbackReason != fallbackReason || record.fallbackStatus != fallbackStatus
            || record.fallbackPhase != fallbackPhase
        {
            problems.append("classified \(Self.describe(record)), expected \(description)")
        }
        if record.socketFailures < minimumSocketFailures {
            problems.append("record shows \(record.socketFailures) socket failures, expected at least \(minimumSocketFailures)")
        }
        return problems
    }
}
