/// Weighs a title read with middling confidence against readings of the same strip sampled at other
/// scales, one at a time, until a title stands.
///
/// A misreading rarely repeats itself at another scale, so agreement between two readings is the test:
/// - the first title stands when another reading gives it too;
/// - another title stands when two of the other readings give it (the first reading misread what those
///   two read alike: "THE MYSTERTOUS ISLAND" at 0.84, then "THE MYSTERIOUS ISLAND" at 0.8× and 1.5×).
///   Of the two, the more confident reading is given.
///
/// Readings without a title (below the thresholds, plainly incomplete) take no part.
///
/// A sure title with a weak word is put to the vote as well (`Stake.replaceable`): it is never withheld,
/// but two readings agreeing on another title replace it ("TME MARVELOUS LAND OF OZ", "The Man Who" for
/// *The Man Who Was Thursday*).
struct TitleVote {
    /// What a title has at stake in the vote.
    enum Stake: Equatable {
        /// It stands as read; no other reading is made.
        case none
        /// It stands unless two other readings agree on another title.
        case replaceable
        /// It stands only when the vote confirms it (or gives another title instead).
        case withheldUnlessConfirmed
    }

    /// The stake of a title read at `confidence` (0–1) whose title group has words read at `wordConfidences`
    /// (0–100).
    static func stake(confidence: Double, wordConfidences: [Double], tuning: ReadingTuning) -> Stake {
        if confidence < tuning.sureTitleConfidence { return .withheldUnlessConfirmed }
        return wordConfidences.contains { $0 < tuning.checkedWordConfidence } ? .replaceable : .none
    }

    /// The reading whose title is being confirmed.
    let first: SpineText
    /// The other readings' titled results so far, none the first title, no two the same title.
    private var others: [SpineText] = []

    init(first: SpineText) {
        self.first = first
    }

    /// Adds another reading's result; returns what stands once it does, or nil while nothing does.
    mutating func add(_ other: SpineText) -> SpineText? {
        guard let firstTitle = first.title, let title = other.title else { return nil }
        if SpineReader.sameTitle(title, firstTitle) { return first }
        if let earlier = others.first(where: { $0.title.map { SpineReader.sameTitle($0, title) } ?? false }) {
            return earlier.confidence >= other.confidence ? earlier : other
        }
        others.append(other)
        return nil
    }
}
