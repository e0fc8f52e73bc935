package import RunModel
package import ScanAnalytics
import ScanClient

/// The analytics classification a job must end up with, given the fault injected into it.
package struct ExpectedClassification: Sendable, Codable, Equatable, CustomStringConvertible {
    package var strategy: StrategyName
    /// The transport the carrying path fell back from (the record's `fallbackFrom`).
    package var fallbackFrom: StreamTransport?
    package var fallbackReason: SocketFailureReason?
    package var fallbackStatus: Int?
    package var fallbackPhase: FallbackPhase?
    /// Socket failures the record must show at least (a reconnected run failed at least once).
    package var minimumSocketFailures: Int
    /// Socket failures the record may show at most (nil: no bound). One faulted socket is one failure;
    /// a refusal that cannot change on retry is not retried.
    package var maximumSocketFailures: Int?
    /// A second strategy that is also right (a race the fault sets up on purpose may go either way).
    package var alsoAccepted: StrategyName?

    package init(
        strategy: StrategyName, fallbackFrom: StreamTransport? = nil, fallbackReason: SocketFailureReason? = nil, fallbackStatus: Int? = nil,
        fallbackPhase: FallbackPhase? = nil, minimumSocketFailures: Int = 0, maximumSocketFailures: Int? = nil
    ) {
        self.strategy = strategy
        self.fallbackFrom = fallbackFrom
        self.fallbackReason = fallbackReason
        self.fallbackStatus = fallbackStatus
        self.fallbackPhase = fallbackPhase
        self.minimumSocketFailures = minimumSocketFailures
        self.maximumSocketFailures = maximumSocketFailures
    }

    package static let websocket = ExpectedClassification(strategy: .websocket)
    /// Only the first open socket is faulted: exactly one failure, then the WebSocket carries the end.
    package static let reconnected = ExpectedClassification(strategy: .websocketReconnected, minimumSocketFailures: 1, maximumSocketFailures: 1)
    /// The first two open sockets are faulted: exactly two failures, then the WebSocket carries the end.
    package static let reconnectedTwice = ExpectedClassification(strategy: .websocketReconnected, minimumSocketFailures: 2, maximumSocketFailures: 2)
    /// Frames that land just as a timer is due: the socket survives or is replaced once.
    package static let websocketOrReconnected: ExpectedClassification = {
        var expected = ExpectedClassification(strategy: .websocket, maximumSocketFailures: 1)
        expected.alsoAccepted = .websocketReconnected
        return expected
    }()
    package static let polling = ExpectedClassification(strategy: .polling, maximumSocketFailures: 0)

    /// A polling fallback before any event from `from`, for this reason (and status of a refusal).
    /// A refusal of the events route refuses the WebSocket once (it is not retried); `socketFailures`
    /// pins the count for other faults that fail the WebSocket exactly once.
    package static func fallback(
        _ reason: SocketFailureReason, status: Int? = nil, from: StreamTransport = .websocket, socketFailures: Int? = nil
    ) -> ExpectedClassification {
        let failures = socketFailures ?? (reason == .refused ? 1 : nil)
        return ExpectedClassification(
            strategy: .pollingFallback, fallbackFrom: from, fallbackReason: reason, fallbackStatus: status, fallbackPhase: .beforeFirstEvent,
            minimumSocketFailures: failures ?? 0, maximumSocketFailures: failures)
    }

    /// The transport `from` was found behind mid-scan and left: the event stream carried the rest
    /// after a lagging WebSocket, polling after a lagging event stream.
    /// `exactSocketFailures`: the WebSocket failures the fault causes (nil: any number, e.g. a stalled
    /// socket retried until it is given up).
    package static func lagging(from: StreamTransport, exactSocketFailures: Int?) -> ExpectedClassification {
        ExpectedClassification(
            strategy: from == .websocket ? .sse : .pollingFallback, fallbackFrom: from, fallbackReason: .lagging, fallbackPhase: .midScan,
            minimumSocketFailures: exactSocketFailures ?? 0, maximumSocketFailures: exactSocketFailures)
    }

    /// This, or the WebSocket carrying the job with no failure (the race a trickle sets up may go either way).
    package var orKeptUp: ExpectedClassification {
        var expected = self
        expected.minimumSocketFailures = 0
        expected.alsoAccepted = .websocket
        return expected
    }

    /// The event stream carried the job after the WebSocket failed before any event for this reason.
    package static func eventStream(after reason: SocketFailureReason, status: Int? = nil) -> ExpectedClassification {
        ExpectedClassification(
            strategy: .sse, fallbackFrom: .websocket, fallbackReason: reason, fallbackStatus: status, fallbackPhase: .beforeFirstEvent,
            minimumSocketFailures: reason == .refused ? 1 : 0, maximumSocketFailures: reason == .refused ? 1 : nil)
    }

    package var description: String {
        [strategy.rawValue + (alsoAccepted.map { " or \($0.rawValue)" } ?? ""), fallbackFrom.map { "from \($0.rawValue)" }, fallbackReason?.rawValue, fallbackStatus.map(String.init), fallbackPhase?.rawValue].compactMap { $0 }
            .joined(separator: "/")
    }

    /// What the record got, in the same notation.
    package static func describe(_ record: AnalyticsRecord) -> String {
        [record.strategy?.rawValue ?? "-", record.fallbackFrom.map { "from \($0.rawValue)" }, record.fallbackReason?.rawValue, record.fallbackStatus.map(String.init), record.fallbackPhase?.rawValue]
            .compactMap { $0 }
            .joined(separator: "/")
    }

    /// Every way the record differs from the expectation; empty when it matches.
    package func mismatches(_ record: AnalyticsRecord) -> [String] {
        var problems: [String] = []
        if let alsoAccepted, record.strategy == alsoAccepted, record.fallbackReason == nil {
            // the other outcome of the race: fine
        } else if record.strategy != strategy || record.fallbackFrom != fallbackFrom || record.fallbackReason != fallbackReason
            || record.fallbackStatus != fallbackStatus
            || record.fallbackPhase != fallbackPhase
        {
            problems.append("classified \(Self.describe(record)), expected \(description)")
        }
        if record.socketFailures < minimumSocketFailures {
            problems.append("record shows \(record.socketFailures) socket failures, expected at least \(minimumSocketFailures)")
        }
        if let maximumSocketFailures, record.socketFailures > maximumSocketFailures {
            problems.append("record shows \(record.socketFailures) socket failures, expected at most \(maximumSocketFailures)")
        }
        return problems
    }
}
