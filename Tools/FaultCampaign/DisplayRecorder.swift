import NIOConcurrencyHelpers
import ScanClient
import ScanProtocol

/// Records what the progress display was given, in order: each accepted event and the fraction
/// shown with it, so a job can be checked for a bar that went backwards or a second ending.
public final class DisplayRecorder: Sendable {
    private let deliveries = NIOLockedValueBox<[(seq: Int, state: JobState, fraction: Double)]>([])

    public init() {}

    /// The observer to hand to the tracker.
    public var observer: TrackerObserver {
        TrackerObserver(event: { [self] event, _, fraction in
            deliveries.withLockedValue { $0.append((event.seq, event.state, fraction)) }
        })
    }

    /// Everything that is wrong with what was displayed; empty when all is well.
    public func problems(succeeded: Bool) -> [String] {
        let shown = deliveries.withLockedValue { $0 }
        var problems: [String] = []
        let fractions = shown.map(\.fraction)
        if let index = fractions.indices.dropLast().first(where: { fractions[$0] > fractions[$0 + 1] }) {
            problems.append("displayed fraction went backwards: \(fractions[index]) then \(fractions[index + 1])")
        }
        let terminals = shown.count { $0.state.isTerminal }
        if terminals != 1 { problems.append("\(terminals) terminal states displayed, expected exactly 1") }
        if let last = shown.last, terminals == 1, !last.state.isTerminal { problems.append("an event was displayed after the terminal state") }
        let seqs = shown.map(\.seq)
        if Set(seqs).count != seqs.count { problems.append("an event was displayed twice") }
        if succeeded, fractions.last != 1 { problems.append("finished at \(fractions.last ?? 0) displayed, not 100 %") }
        return problems
    }
}
