import Foundation
package import ScanProtocol

/// One possible title of a spine and what the decision weighs of it: the title the reading's rules gave, or a
/// text line of the photo that lies on the spine and runs along it. Tools/reading-lab/features.py builds the
/// same candidates with the same features (the lab checks that both choose alike).
package struct TitleCandidate: Sendable, Hashable {
    /// Where a candidate comes from.
    package enum Source: String, Sendable, Codable {
        /// A text line of the whole photo (`RecordedLine`).
        case line
        /// The title the reading's rules gave (crop readings, then the photo's lines: `LineTitles`).
        case rules
    }

    package var text: String
    package var source: Source
    /// The features in `TitleCandidates.featureNames` order.
    package var features: [Double]
}

/// Builds each spine's candidates and their features (see `featureNames`).
package struct TitleCandidates: Sendable {
    /// The features, in the order of the model's weights.
    package static let featureNames = [
        "bias", "from_line", "confidence", "relative_thickness", "is_thickest", "agrees_with_rules", "rules_similarity",
        "words", "letters", "digit_share", "upper_share", "english_share", "other_language_share",
        "length_share", "one_word", "lines_on_book", "two_lines", "within_rules", "latin_share", "mark_share",
        "relative_length", "crop_agreement",
    ]

    /// Two lines read as one title: the second lies under the first (across, `minAcross`–`maxAcross` of the
    /// thicker's thickness, overlapping along by `overlap` of the shorter) or after it on the same text line
    /// (across within `sameLine` of a thickness, at most `maxGap` thicknesses after it); neither is over
    /// `thicknessRatio` times as thick as the other.
    package struct PairGeometry: Sendable {
        var minAcross = 0.3, maxAcross = 2.5, overlap = 1.0 / 3
        var sameLine = 0.5, maxGap = 3.0, thicknessRatio = 1.6
    }

    let pairing = PairGeometry()

    let knowledge: ReadingKnowledge

    package init(knowledge: ReadingKnowledge) {
        self.knowledge = knowledge
    }

    /// The candidates of a spine with outline `polygon` (normalised corners, clockwise from top-left), lying or
    /// not, whose rules gave `rules` (read with `rulesConfidence`) and whose reading spine by spine gave `read`, among
    /// `lines` of a photo `width` × `height`: each
    /// line on it, each two lines that read as one title (`PairGeometry`), and the rules' title when no line or
    /// pair reads it.
    package func candidates(
        polygon: [NormalizedPoint], lying: Bool, rules: String?, rulesConfidence: Double?, read: String? = nil, lines: [RecordedLine], width: Int,
        height: Int
    ) -> [TitleCandidate] {
        let readWords = Set((read ?? "").split(whereSeparator: \.isWhitespace).map { ReadingKnowledge.key(String($0)) }).subtracting([""])
        let w = Double(width), h = Double(height)
        let corners = polygon.map { (x: $0.x * w, y: $0.y * h) }
        let on = lines.filter { ($0.orientation == .horizontal) == lying && Self.contains(corners, x: $0.centerX * w, y: $0.centerY * h) }
        let thickest = on.map(\.thickness).max() ?? 0
        let longest = on.map(\.length).max() ?? 0
        let longSide = Double(max(width, height))
        let length = Self.length(corners)
        let rulesKey = rules.map(Self.simple) ?? ""
        var items: [(text: String, parts: [RecordedLine])] = on.map { ($0.text, [$0]) }
        items += pairs(on, width: width, height: height).map { ($0.0.text + " " + $0.1.text, [$0.0, $0.1]) }
        if let rules, !items.contains(where: { Self.simple($0.text) == rulesKey }) { items.append((rules, [])) }
        var out: [TitleCandidate] = []
        for (text, parts) in items {
            let s = Self.simple(text)
            guard !s.isEmpty else { continue }
            let scalars = Array(text.unicodeScalars)
            let letters = scalars.filter(ReadingKnowledge.isLetter)
            let digits = scalars.count { $0.properties.numericType == .decimal }
            let marks = scalars.count { !(ReadingKnowledge.isLetter($0) || $0.properties.numericType != nil || $0.properties.isWhitespace) }
            let nonSpace = scalars.count { $0 != " " }
            let (english, other) = shares(text)
            let words = s.split(separator: " ").count
            let similarity: Double
            if rulesKey.isEmpty {
                similarity = 0
            } else {
                let a = Array(s.unicodeScalars), b = Array(rulesKey.unicodeScalars)
                similarity = 1 - Double(Self.levenshtein(a, b)) / Double(max(a.count, b.count))
            }
            let fromLine = !parts.isEmpty
            let thickness = parts.map(\.thickness).min() ?? 0
            let lineLength = parts.map(\.length).max() ?? 0
            let features: [Double] = [
                1,
                fromLine ? 1 : 0,
                parts.map(\.confidence).min() ?? rulesConfidence ?? 0,
                fromLine && thickest > 0 ? thickness / thickest : 0,
                fromLine && thickness >= thickest ? 1 : 0,
                !rulesKey.isEmpty && s == rulesKey ? 1 : 0,
                similarity,
                Double(min(words, 8)) / 8,
                log1p(Double(letters.count)) / 4,
                Double(digits) / Double(max(1, letters.count + digits)),
                Double(letters.count { $0.properties.isUppercase }) / Double(max(1, letters.count)),
                english, other,
                fromLine && length > 0 ? min(1, lineLength * longSide / length) : 0,
                words == 1 ? 1 : 0,
                log1p(Double(on.count)) / 3,
                parts.count == 2 ? 1 : 0,
                !rulesKey.isEmpty && s != rulesKey && (" " + rulesKey + " ").contains(" " + s + " ") ? 1 : 0,
                Double(letters.count { $0.value < 0x250 }) / Double(max(1, letters.count)),
                Double(marks) / Double(max(1, nonSpace)),
                fromLine && longest > 0 ? lineLength / longest : 0,
                Self.share(of: text, in: readWords),
            ]
            out.append(TitleCandidate(text: text, source: fromLine ? .line : .rules, features: features))
        }
        return out
    }

    /// (along, across) of the line's centre in the photo turned so that it reads left to right (pixels).
    static func readingFrame(_ line: RecordedLine, width: Double, height: Double) -> (along: Double, across: Double) {
        let x = line.centerX * width, y = line.centerY * height
        switch line.orientation {
        case .verticalTopToBottom: return (y, width - x)
        case .verticalBottomToTop: return (height - y, x)
        case .horizontal: return (x, y)
        }
    }

    /// Each two lines of `on` that read as one title in that order (`PairGeometry`).
    func pairs(_ on: [RecordedLine], width: Int, height: Int) -> [(RecordedLine, RecordedLine)] {
        let w = Double(width), h = Double(height), side = Double(max(width, height))
        let g = pairing
        var out: [(RecordedLine, RecordedLine)] = []
        for (i, a) in on.enumerated() {
            for (j, b) in on.enumerated() where i != j && a.orientation == b.orientation {
                let ta = a.thickness * side, tb = b.thickness * side
                guard max(ta, tb) <= g.thicknessRatio * min(ta, tb) else { continue }
                let (ua, va) = Self.readingFrame(a, width: w, height: h), (ub, vb) = Self.readingFrame(b, width: w, height: h)
                let la = a.length * side, lb = b.length * side, thick = max(ta, tb)
                let overlap = min(ua + la / 2, ub + lb / 2) - max(ua - la / 2, ub - lb / 2)
                let under = vb - va >= g.minAcross * thick && vb - va <= g.maxAcross * thick && overlap >= g.overlap * min(la, lb)
                let gap = (ub - lb / 2) - (ua + la / 2)
                let after = abs(vb - va) <= g.sameLine * thick && gap >= -0.5 * thick && gap <= g.maxGap * thick
                if under || after { out.append((a, b)) }
            }
        }
        return out
    }

    /// The shares of `text`'s words in the English lists and in the best of the other languages' lists.
    func shares(_ text: String) -> (english: Double, other: Double) {
        let words = text.split(whereSeparator: \.isWhitespace).map { ReadingKnowledge.key(String($0)) }.filter { !$0.isEmpty }
        guard !words.isEmpty else { return (0, 0) }
        let n = Double(words.count)
        let english = Double(words.count { knowledge.english.containsKey($0) }) / n
        let other = knowledge.others.map { list in Double(words.count { list.containsKey($0) }) / n }.max() ?? 0
        return (english, other)
    }

    /// The share of `text`'s words (keys) that `words` holds: how far the reading spine by spine agrees.
    static func share(of text: String, in words: Set<String>) -> Double {
        let keys = text.split(whereSeparator: \.isWhitespace).map { ReadingKnowledge.key(String($0)) }.filter { !$0.isEmpty }
        guard !keys.isEmpty, !words.isEmpty else { return 0 }
        return Double(keys.count { words.contains($0) }) / Double(keys.count)
    }

    /// Lower case, letters and digits, words one space apart: how two readings are compared.
    package static func simple(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var space = true
        for scalar in text.lowercased().unicodeScalars {
            if ReadingKnowledge.isLetter(scalar) || scalar.properties.numericType != nil {
                out.append(scalar)
                space = false
            } else if !space {
                out.append(" ")
                space = true
            }
        }
        if out.last == " " { out.removeLast() }
        return String(out)
    }

    /// Whether (x, y) lies inside `polygon` (even-odd rule).
    static func contains(_ polygon: [(x: Double, y: Double)], x: Double, y: Double) -> Bool {
        var inside = false
        for i in polygon.indices {
            let (a, b) = (polygon[i], polygon[(i + 1) % polygon.count])
            if (a.y > y) != (b.y > y) {
                let crossing = a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y)
                if x < crossing { inside.toggle() }
            }
        }
        return inside
    }

    /// The spine's length: the mean of its longer pair of opposite sides.
    static func length(_ p: [(x: Double, y: Double)]) -> Double {
        guard p.count == 4 else { return 0 }
        func d(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double { hypot(a.x - b.x, a.y - b.y) }
        return max((d(p[0], p[1]) + d(p[2], p[3])) / 2, (d(p[1], p[2]) + d(p[3], p[0])) / 2)
    }

    static func levenshtein(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() { current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)) }
            previous = current
        }
        return previous[b.count]
    }
}
