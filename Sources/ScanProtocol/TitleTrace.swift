/// Why a spine's title is what it is (`--json`, `scan --explain`): the reading stage that decided it, where the
/// chosen text came from, how sure the decision was, and what the rules before it had given.
public struct TitleTrace: Codable, Sendable, Hashable {
    /// The reading stage that decided the title.
    public enum Stage: String, Codable, Sendable, CaseIterable {
        /// The learned decision over the spine's candidates (the rules' title and the photo's lines on it).
        case learnedChoice = "learned_choice"
    }

    /// Where a chosen title's text came from.
    public enum Source: String, Codable, Sendable, CaseIterable {
        /// A text line read on the whole photo that lies on the spine.
        case photoLine = "photo_line"
        /// The title the reading's rules gave (crop readings checked against the photo's lines).
        case rules
    }

    public var stage: Stage
    /// Where the title came from; nil when no candidate was sure enough (the spine has no title).
    public var source: Source?
    /// The likeliest candidate's probability of being the title, 0…1; nil when the spine had no candidate.
    public var probability: Double?
    /// What the rules had given, when anything.
    public var rulesTitle: String?
    /// How many candidates were weighed.
    public var candidates: Int

    public init(stage: Stage, source: Source?, probability: Double?, rulesTitle: String?, candidates: Int) {
        self.stage = stage
        self.source = source
        self.probability = probability
        self.rulesTitle = rulesTitle
        self.candidates = candidates
    }
}
