package import FaultProxy
import RunModel
package import ScanClient
import Synchronization

/// One job's fault: its kind, the parameters drawn for it, how the client is run, what the proxy
/// does to each connection, and the classification the analytics record must show.
package struct InjectedFault: Sendable, Codable, Equatable, CustomStringConvertible {
    package var kind: FaultKind
    /// The refused upgrade's status, or the status failing polls get.
    package var status: Int?
    /// Events forwarded before a socket is dropped, reset or swallowed.
    package var events: Int?
    /// Every this-many-th status poll fails.
    package var every: Int?
    /// Latency of a slow link, or how long a failing or slow poll takes.
    package var milliseconds: Int?
    package var bytesPerSecond: Int?
    /// Upload bytes (headers included) forwarded before the reset.
    package var cutAtByte: Int?
    /// Poll faults behind a refused upgrade (`--strategy auto`) rather than under `--strategy polling`.
    package var viaFallback: Bool?

    package init(kind: FaultKind) { self.kind = kind }

    /// The `--strategy` the job runs with.
    package var mode: TrackerMode { kind == .pollFaults && viaFallback != true ? .polling : .auto }

    /// The classification the analytics record must show.
    package var expected: ExpectedClassification {
        switch kind {
        case .none, .uploadReset, .slowLink: .websocket
        case .upgradeRefused: .fallback(.refused, status: status, from: .sse)
        case .silentUpgrade: .eventStream(after: .silent)
        // The proxy's 403 reaches no client (WSClient reports only "upgrade failed") and, with the
        // event stream in the ladder, no probe asks: refused, status unknown.
        case .blockedUpgrade: .eventStream(after: .refused)
        case .bufferingProxy: .fallback(.buffered, from: .sse, socketFailures: 1)
        case .dropAfterEvents, .tcpReset, .swallowFrames, .reconnectDuringPoll: .reconnected
        case .partialReplay: .reconnectedTwice
        case .lateUploadAnswer: .websocket
        case .frameBurstAtTimer: .websocketOrReconnected
        case .pollFaults: viaFallback == true ? .fallback(.refused, status: 503, from: .sse) : .polling
        // The stream is found behind mid-scan (what a hedged poll showed was shown first); the blocked
        // upgrade is the one socket failure (not retried), as is the lagging socket; a stalled socket
        // is retried like any silent one. A trickled socket whose small frames keep up is behind only
        // with the large result frame: a hedged poll shows the end, and the socket carried the job.
        case .trickledStream: .lagging(from: .sse, exactSocketFailures: 1)
        case .stalledThenTrickled: .lagging(from: .sse, exactSocketFailures: nil)
        case .trickledSocket: .lagging(from: .websocket, exactSocketFailures: 1).orKeptUp
        }
    }

    package var description: String {
        let parameters: [String?] = [
            status.map { "status \($0)" }, events.map { "after \($0) events" }, every.map { "every \($0). poll" },
            milliseconds.map { "\($0) ms" }, bytesPerSecond.map { $0 >= 1024 ? "\($0 / 1024) KiB/s" : "\($0) B/s" },
            cutAtByte.map { "cut at byte \($0)" },
            viaFallback.map { $0 ? "auto, upgrade refused 503" : "--strategy polling" },
        ]
        let text = parameters.compactMap { $0 }.joined(separator: ", ")
        return text.isEmpty ? kind.rawValue : "\(kind.rawValue) (\(text))"
    }

    /// The proxy's per-connection decisions for this job. Curl opens one connection per request,
    /// so a connection's first request is the request the fault is meant for.
    package func plan() -> FaultPlan {
        let fault = self
        let polls = Atomic<Int>(0)
        return { request in
            let isEvents = request.path.contains("/events")
            let isPoll = request.method == "GET" && !request.isUpgrade && !isEvents && request.path.hasPrefix("/v1/scans/")
            let firstOpenSocket = request.isUpgrade && request.acceptedUpgradesBefore == 0
            let secondOpenSocket = request.isUpgrade && request.acceptedUpgradesBefore == 1
            switch fault.kind {
            case .none:
                return .passThrough
            case .upgradeRefused:
                return isEvents ? .respond(status: fault.status ?? 503) : .passThrough
            case .silentUpgrade:
                return request.isUpgrade ? .silentAfterResponseHead : .passThrough
            case .blockedUpgrade:
                return .blockUpgrade
            case .bufferingProxy:
                return request.isUpgrade ? .blockUpgrade : .buffer
            case .dropAfterEvents:
                return firstOpenSocket ? .dropAfterEvents(fault.events ?? 1) : .passThrough
            case .tcpReset:
                return firstOpenSocket ? .resetAfterEvents(fault.events ?? 1) : .passThrough
            case .swallowFrames:
                return firstOpenSocket ? .swallowAfterEvents(fault.events ?? 1) : .passThrough
            case .uploadReset:
                return request.method == "PUT" && request.ordinal == 1 ? .resetAfterRequestBytes(fault.cutAtByte ?? 1000) : .passThrough
            case .slowLink:
                return .shaped(latency: .milliseconds(fault.milliseconds ?? 0), bytesPerSecond: fault.bytesPerSecond ?? 1 << 20)
            case .partialReplay:
                if firstOpenSocket { return .swallowAfterEvents(fault.events ?? 1) }
                return secondOpenSocket ? .swallowAfterEvents(1) : .passThrough
            case .reconnectDuringPoll:
                if firstOpenSocket { return .dropAfterEvents(fault.events ?? 1) }
                return isPoll ? .delayResponse(.milliseconds(fault.milliseconds ?? 500)) : .passThrough
            case .lateUploadAnswer:
                return request.method == "PUT" ? .delayResponse(.milliseconds(fault.milliseconds ?? 1000)) : .passThrough
            case .frameBurstAtTimer:
                return firstOpenSocket ? .holdAfterEvents(fault.events ?? 1, .milliseconds(fault.milliseconds ?? 700)) : .passThrough
            case .trickledStream:
                if request.isUpgrade { return .blockUpgrade }
                return isEvents ? .trickle(bytesPerSecond: fault.bytesPerSecond ?? 300) : .passThrough
            case .stalledThenTrickled:
                if request.isUpgrade { return .silentAfterResponseHead }
                return isEvents ? .trickle(bytesPerSecond: fault.bytesPerSecond ?? 300) : .passThrough
            case .trickledSocket:
                return request.isUpgrade ? .trickle(bytesPerSecond: fault.bytesPerSecond ?? 500) : .passThrough
            case .pollFaults:
                if isEvents { return fault.viaFallback == true ? .respond(status: 503) : .passThrough }
                guard isPoll else { return .passThrough }
                let n = polls.add(1, ordering: .relaxed).newValue
                let slow = Duration.milliseconds(fault.milliseconds ?? 200)
                if n % (fault.every ?? 2) == 0 { return .respondAfter(slow, status: fault.status ?? 500) }
                return n % 2 == 1 ? .delay(slow) : .passThrough
            }
        }
    }
}
