import ScanProtocol
import Testing

@testable import SpineReading

/// The vote that decides whether a title read with middling confidence stands, on readings built by
/// hand (the cases are the ones the evaluation set showed).
@Suite("Confirming a title by other readings")
struct TitleVoteTests {
    /// A reading's result with `title` at `confidence` (0–1).
    static func reading(_ title: String?, _ confidence: Double, author: String? = nil) -> SpineText {
        SpineText(title: title, author: author, text: title, confidence: confidence, orientation: .verticalTopToBottom)
    }

    @Test("the first title stands once another reading gives it, case and marks aside")
    func confirmedByOne() {
        let first = Self.reading("Jo's Boys", 0.82, author: "Alcott")
        var vote = TitleVote(first: first)
        #expect(vote.add(Self.reading("JOS BOYS", 0.88)) == first)
    }

    @Test("two other readings that agree replace a first title they both read differently")
    func replacedByTwo() {
        var vote = TitleVote(first: Self.reading("THE MYSTERTOUS ISLAND", 0.84))
        let atSmallerScale = Self.reading("THE MYSTERIOUS ISLAND", 0.80, author: "JULES VERNE")
        let atLargerScale = Self.reading("THE MYSTERIOUS ISLAND", 0.96)
        #expect(vote.add(atSmallerScale) == nil)
        // The more confident of the two is given, with what it read besides the title.
        #expect(vote.add(atLargerScale) == atLargerScale)

        var other = TitleVote(first: Self.reading("THE MYSTERTOUS ISLAND", 0.84))
        _ = other.add(atLargerScale)
        #expect(other.add(atSmallerScale) == atLargerScale)
    }

    @Test("readings that all disagree leave nothing standing; readings without a title take no part")
    func nothingStands() {
        var vote = TitleVote(first: Self.reading("Latte Women", 0.83))
        #expect(vote.add(Self.reading("Urle Women", 0.75)) == nil)
        #expect(vote.add(Self.reading(nil, 0.4)) == nil)
        #expect(vote.add(Self.reading("Latle Women", 0.77)) == nil)
        #expect(vote.add(Self.reading(nil, 0.4)) == nil)
        #expect(vote.add(Self.reading("Une Women", 0.93)) == nil)
    }

    @Test("the first title still stands when a later reading gives it after others disagreed")
    func confirmedLater() {
        let first = Self.reading("The Prairie", 0.86)
        var vote = TitleVote(first: first)
        #expect(vote.add(Self.reading("The Praine", 0.72)) == nil)
        #expect(vote.add(Self.reading("THE PRAIRIE", 0.91)) == first)
    }

    @Test("a first reading without a title is never confirmed, not even by two agreeing readings")
    func untitledFirst() {
        var vote = TitleVote(first: Self.reading(nil, 0.6))
        #expect(vote.add(Self.reading("Emma", 0.96)) == nil)
        #expect(vote.add(Self.reading("Emma", 0.97)) == nil)
    }

    @Test("what a title has at stake: middling titles must be confirmed; a sure one only with a weak word is checked")
    func stake() {
        let tuning = ReadingTuning()
        let firm = [96.0, 97.0], weak = [96.0, tuning.checkedWordConfidence - 1]
        #expect(TitleVote.stake(confidence: 0.85, wordConfidences: firm, tuning: tuning) == .withheldUnlessConfirmed)
        #expect(TitleVote.stake(confidence: tuning.sureTitleConfidence, wordConfidences: firm, tuning: tuning) == .none)
        #expect(TitleVote.stake(confidence: 0.95, wordConfidences: weak, tuning: tuning) == .replaceable)
        #expect(TitleVote.stake(confidence: 0.95, wordConfidences: [], tuning: tuning) == .none)
    }
}
