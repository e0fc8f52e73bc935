import Foundation
import NIOConcurrencyHelpers
package import ScanClient
package import ScanProtocol

/// Records the whole emitted stream of one run, in order, as the user sees it: every event the
/// tracker hands to the display (what `--events` prints and `--json` counts), with its path and the
/// fraction the live line shows, plus every "now via ws/poll" switch; then checks all of it.
package final class DisplayRecorder: Sendable {
    /// One emitted event: what `--events` prints, and the live line drawn from it.
    struct Emitted: Sendable {
        var event: JobEvent
        var path: EventPath
        /// The fraction the live line shows with it.
        var shown: Double
        /// The path the live line names (`[ws]` / `[poll]`) when it is drawn.
        var linePath: EventPath?
        /// When the display got it (this process's clock, which the in-process service shares).
        var shownAt: Date
    }

    private let stream = NIOLockedValueBox<(emitted: [Emitted], linePath: EventPath?)>(([], nil))

    package init() {}

    /// The observer to hand to the tracker.
    package var observer: TrackerObserver {
        TrackerObserver(
            event: { [self] event, path, fraction in
                let now = Date()
                stream.withLockedValue { $0.emitted.append(Emitted(event: event, path: path, shown: fraction, linePath: $0.linePath, shownAt: now)) }
            },
            path: { [self] path in stream.withLockedValue { $0.linePath = path } })
    }

    /// How many events were emitted (the analytics record's `eventsByPath` must add up to it).
    package var emittedCount: Int { stream.withLockedValue { $0.emitted.count } }

    /// Seconds from the server writing the terminal event (its timestamp) to the display showing it;
    /// nil without a terminal event. Meaningful when the service runs in this process (one clock).
    package var terminalDelaySeconds: Double? {
        stream.withLockedValue { state in
            state.emitted.last { $0.event.state.isTerminal }.map { $0.shownAt.timeIntervalSince($0.event.timestamp) }
        }
    }

    /// Emitted events per path, as the analytics record counts them.
    package var emittedByPath: [String: Int] {
        stream.withLockedValue { Dictionary(grouping: $0.emitted, by: \.path.rawValue).mapValues(\.count) }
    }

    /// Everything that is wrong with the emitted stream; empty when all is well. `baseline` is the
    /// fault-free result the last event must carry when the run succeeded.
    package func problems(succeeded: Bool, baseline: ScanResult?) -> [String] {
        let emitted = stream.withLockedValue { $0.emitted }
        var problems: [String] = []
        func describe(_ e: Emitted) -> String {
            "seq \(e.event.seq) \(e.event.state.rawValue)/\(e.event.stage.rawValue) \(Int((e.event.fraction * 100).rounded()))% [\(e.path.rawValue)]"
        }
        for (a, b) in zip(emitted, emitted.dropFirst()) {
            if b.event.seq <= a.event.seq { problems.append("emitted seq went backwards or repeated: \(describe(a)) then \(describe(b))") }
            if b.event.state.progressRank < a.event.state.progressRank { problems.append("state went backwards: \(describe(a)) then \(describe(b))") }
            if b.event.stage.progressRank < a.event.stage.progressRank { problems.append("stage went backwards: \(describe(a)) then \(describe(b))") }
            let endsWithoutProgress = b.event.state == .failed || b.event.state == .canceled
            if !endsWithoutProgress, b.event.fraction < a.event.fraction {
                problems.append("event fraction went backwards: \(describe(a)) then \(describe(b))")
            }
            if b.shown < a.shown { problems.append("displayed fraction went backwards: \(a.shown) then \(b.shown)") }
        }
        if let bad = emitted.first(where: { $0.shown < 0 || $0.shown > 1 || !$0.shown.isFinite }) {
            problems.append("displayed fraction out of range: \(bad.shown)")
        }
        let terminals = emitted.count { $0.event.state.isTerminal }
        if terminals != 1 { problems.append("\(terminals) terminal events emitted, expected exactly 1") }
        if let last = emitted.last, terminals == 1, !last.event.state.isTerminal { problems.append("an event was emitted after the terminal one") }
        if let path = emitted.first(where: { $0.path != .upload && $0.linePath != $0.path }) {
            problems.append("the live line named [\(path.linePath?.rawValue ?? "none")] for an event carried by \(path.path.rawValue)")
        }
        if succeeded {
            if emitted.last?.shown != 1 { problems.append("finished at \(emitted.last?.shown ?? 0) displayed, not 100 %") }
            if emitted.last?.event.state != .succeeded { problems.append("the last emitted event is not the success") }
            if emitted.last?.event.result?.withoutTimings != baseline { problems.append("the last emitted event's result differs from the baseline") }
        }
        return problems
    }
}
