import Foundation
import ScanProtocol
import SpineReading
import Testing

/// The learned title decision: its knowledge from the installed Debian lists, each spine's candidates and their
/// features, and the choice among them.
@Suite("The learned title decision")
struct TitleChoiceTests {
    static let knowledge = ReadingKnowledge.installed

    /// A standing spine over x 0.4–0.5 of a 1000 × 1000 photo.
    static func spine(title: String? = nil, index: Int = 0, x: Double = 0.4) -> Spine {
        Spine(
            index: index, row: 0, box: NormalizedBox(x: x, y: 0.1, width: 0.1, height: 0.8), confidence: 0.9, color: RGBColor(r: 1, g: 2, b: 3),
            pose: .upright, title: title, textConfidence: title == nil ? nil : 0.8)
    }

    static func line(_ text: String, x: Double = 0.45, thickness: Double = 0.03, confidence: Double = 0.97, orientation: TextOrientation = .verticalBottomToTop)
        -> RecordedLine
    {
        RecordedLine(text: text, confidence: confidence, centerX: x, centerY: 0.5, thickness: thickness, length: 0.4, orientation: orientation)
    }

    @Test("the word lists come from the installed Debian packages, in four languages")
    func knowledgeFromPackages() {
        let k = Self.knowledge
        #expect(k.missing.isEmpty, "missing: \(k.missing)")
        #expect(k.english.count > 50_000 && k.others.count == 3)
        #expect(k.english.contains("House") && k.english.contains("gardens") && !k.english.contains("Xqzzv"))
        #expect(k.others.contains { $0.contains("Häuser") } && k.others.contains { $0.contains("biblioteca") } && k.others.contains { $0.contains("maison") })
        #expect(ReadingKnowledge.key("WAINWRIGHT’S") == "wainwright" && ReadingKnowledge.key("O'Brien") == "obrien")
    }

    @Test("a list's lines are keyed on their bytes as `key` keys them: case, possessives, marks, accents, CRLF")
    func listKeys() {
        let lines = ["House", "Aaron's", "O'Brien", "co-op", "Häuser", "Marotta’s", "été", "x\r", "", "42", "'s"]
        var set = Set<UInt64>()
        ReadingKnowledge.insertKeys(ofLinesIn: Array(lines.joined(separator: "\n").utf8), into: &set)
        let expected = Set(lines.map { ReadingKnowledge.key($0.replacingOccurrences(of: "\r", with: "")) }.filter { !$0.isEmpty }.map(ReadingKnowledge.hash))
        #expect(set == expected)
        #expect(set.contains(ReadingKnowledge.hash("aaron")) && set.contains(ReadingKnowledge.hash("obrien")) && set.contains(ReadingKnowledge.hash("häuser")))
        #expect(set.count == 9)
    }

    @Test("a spine's candidates are the lines on it running along it, and the rules' title when no line reads it")
    func candidates() throws {
        let builder = TitleCandidates(knowledge: Self.knowledge)
        let q = Self.spine().polygon
        let lines = [
            Self.line("GREAT EXPECTATIONS", thickness: 0.04), Self.line("SMITH", thickness: 0.02),
            Self.line("ELSEWHERE", x: 0.8), Self.line("ACROSS", orientation: .horizontal), Self.line("796.4 Fer", thickness: 0.01),
        ]
        let found = builder.candidates(
            polygon: [q.topLeft, q.topRight, q.bottomRight, q.bottomLeft], lying: false, rules: "GREAT EXPECTATONS", rulesConfidence: 0.7,
            lines: lines, width: 1000, height: 1000)
        #expect(found.map(\.text) == ["GREAT EXPECTATIONS", "SMITH", "796.4 Fer", "GREAT EXPECTATONS"])
        #expect(found.map(\.source) == [.line, .line, .line, .rules])
        let names = TitleCandidates.featureNames
        // NaN (never equal, never greater) for a feature the build does not have.
        func feature(_ c: TitleCandidate, _ name: String) -> Double { names.firstIndex(of: name).map { c.features[$0] } ?? .nan }
        #expect(feature(found[0], "is_thickest") == 1 && feature(found[1], "is_thickest") == 0)
        #expect(feature(found[1], "relative_thickness") == 0.5)
        #expect(feature(found[0], "english_share") == 1 && feature(found[2], "digit_share") > 0.5 && feature(found[0], "digit_share") == 0)
        #expect(feature(found[0], "rules_similarity") > 0.9 && feature(found[0], "agrees_with_rules") == 0)
        #expect(feature(found[3], "from_line") == 0 && feature(found[3], "confidence") == 0.7)
        #expect(feature(found[1], "one_word") == 1 && feature(found[0], "one_word") == 0)
        // A line that reads the rules' title stands for it: no second candidate of the same text.
        let agreeing = builder.candidates(
            polygon: [q.topLeft, q.topRight, q.bottomRight, q.bottomLeft], lying: false, rules: "Great Expectations", rulesConfidence: 0.7,
            lines: lines, width: 1000, height: 1000)
        #expect(agreeing.count == 3 && (feature(agreeing[0], "agrees_with_rules")) == 1)
        // Two lines of like size one under the other read as one title too, in reading order (bottom to top: the
        // left line first); a line of another size does not join them.
        let twoLines = builder.candidates(
            polygon: [q.topLeft, q.topRight, q.bottomRight, q.bottomLeft], lying: false, rules: nil, rulesConfidence: nil,
            lines: [Self.line("OF WAKEFIELD", x: 0.47, thickness: 0.02), Self.line("THE VICAR", x: 0.44, thickness: 0.02), Self.line("GOLDSMITH", x: 0.41, thickness: 0.01)],
            width: 1000, height: 1000)
        #expect(twoLines.map(\.text) == ["OF WAKEFIELD", "THE VICAR", "GOLDSMITH", "THE VICAR OF WAKEFIELD"])
        #expect(feature(twoLines[3], "two_lines") == 1 && feature(twoLines[0], "two_lines") == 0)
    }

    @Test("each spine takes its likeliest candidate when it reaches the threshold; a title chosen twice stays with the likelier spine")
    func choice() throws {
        // A model that weighs only thickness against its spine's lines: the thickest line wins, at p = 0.73.
        let thickness = try #require(TitleCandidates.featureNames.firstIndex(of: "relative_thickness"))
        func model(threshold: Double) -> TitleModel {
            TitleModel(initial: 0, stumps: [.init(feature: thickness, threshold: 0.9, left: 0, right: 1)], threshold: threshold)
        }
        let choice = TitleChoice(model: model(threshold: 0.6), knowledge: Self.knowledge)
        let spines = [Self.spine(title: "GREAT EXPECTATONS"), Self.spine(index: 1, x: 0.6), Self.spine(index: 2, x: 0.2)]
        let lines = [
            Self.line("GREAT EXPECTATIONS", thickness: 0.04), Self.line("SMITH", thickness: 0.02),
            Self.line("GREAT EXPECTATIONS", x: 0.65, thickness: 0.03), Self.line("HARD TIMES", x: 0.62, thickness: 0.02),
        ]
        let chosen = choice.chosen(spines, lines: lines, width: 1000, height: 1000)
        #expect(chosen[0].title == "GREAT EXPECTATIONS")
        #expect(chosen[0].titleTrace?.source == .photoLine && chosen[0].titleTrace?.rulesTitle == "GREAT EXPECTATONS")
        #expect(chosen[0].titleTrace?.candidates == 3)
        // The second spine's thickest line is the same title, as likely: it stays with the first; no line, no title.
        #expect(chosen[1].title == nil && chosen[1].titleTrace?.source == nil && chosen[1].titleTrace?.probability != nil)
        #expect(chosen[2].title == nil && chosen[2].titleTrace?.candidates == 0)
        // Above the likeliest: nothing reaches a threshold of 0.9.
        let strict = TitleChoice(model: model(threshold: 0.9), knowledge: Self.knowledge)
        #expect(strict.chosen(spines, lines: lines, width: 1000, height: 1000).allSatisfy { $0.title == nil })
    }

    @Test("the committed model fits this build's features and was fitted with held-out figures")
    func committedModel() throws {
        let model = try #require(TitleModel.committed)
        #expect(model.fits && !model.stumps.isEmpty)
        #expect(model.threshold > 0 && model.threshold < 1)
    }
}
