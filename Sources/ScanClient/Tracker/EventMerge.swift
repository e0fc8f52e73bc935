package import ScanProtocol

/// The merge of the three paths' events (upload snapshot, socket frames, polls) into the one
/// stream a user sees. Pure value logic, owned by `TrackerStateMachine`.
///
/// Invariants:
/// - an event is news (delivered) only if its `seq` is higher than the last one delivered and it is
///   not behind it (state, stage, fraction; a terminal event is never behind), so the delivered seq
///   strictly increases and state, stage and fraction never go backwards;
/// - every event seen, news or not, counts for the contiguity that `after=` resumes from;
/// - the display fraction never decreases;
/// - a merge that continues a resubmitted job starts from what the first submission showed: the
///   server numbers the new job's events after it (`PUT …?continueAfter=N`), and the new job's
///   early events (queued, decoding…) are not news until it passes the point already shown.
package struct EventMerge: Sendable {
    private var seen = Set<Int>()
    /// The highest seq below which every event has been seen; sockets resume after it.
    package private(set) var contiguous = 0
    /// The last delivered event: only newer events that are not behind it are news.
    package private(set) var lastShown: JobEvent?
    /// The fraction to display: never lower than before.
    package private(set) var displayFraction = 0.0

    /// A new merge; `continuing` is the last event a previous submission of the same job showed.
    package init(continuing: JobEvent? = nil) {
        guard let continuing else { return }
        contiguous = continuing.seq
        lastShown = continuing
        displayFraction = continuing.state == .succeeded ? 1 : continuing.fraction
    }

    /// The seq of the last delivered event (0 before any).
    package var lastDelivered: Int { lastShown?.seq ?? 0 }

    /// Takes an event from any path; returns the fraction to display when it is news, nil otherwise.
    package mutating func accept(_ event: JobEvent) -> Double? {
        guard event.seq > 0, event.seq > contiguous, !seen.contains(event.seq) else { return nil }
        seen.insert(event.seq)
        while seen.contains(contiguous + 1) {
            seen.remove(contiguous + 1)
            contiguous += 1
        }
        // Older than what was already shown, or behind it: it fills the contiguity, but it is not news.
        guard event.seq > lastDelivered, !Self.isBehind(event, lastShown) else { return nil }
        lastShown = event
        displayFraction = max(displayFraction, event.state == .succeeded ? 1 : event.fraction)
        return displayFraction
    }

    /// Whether `event` shows less progress than `shown`: an earlier state or stage, or a lower
    /// fraction. A terminal event is never behind (every run ends with one).
    static func isBehind(_ event: JobEvent, _ shown: JobEvent?) -> Bool {
        guard let shown, !event.state.isTerminal else { return false }
        return event.state.progressRank < shown.state.progressRank || event.stage.progressRank < shown.stage.progressRank
            || event.fraction < shown.fraction
    }
}
