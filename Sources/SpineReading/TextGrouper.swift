import Foundation

/// Splits the words read on one spine into text groups (runs of similar size that sit together) and
/// picks the title (the largest lettering) and the author (the next group).
enum TextGrouper {
    /// A run of words read together, in reading order.
    struct Group: Sendable, Hashable {
        var words: [RecognisedWord]
        var text: String { words.map(\.text).joined(separator: " ") }
        /// Median cap height of the words in pixels of the read strip.
        var height: Double {
            let hs = words.map(\.capHeight).sorted()
            return hs.isEmpty ? 0 : hs[hs.count / 2]
        }
        /// How much the group looks like the title: large lettering first, longer text breaking near-ties.
        var prominence: Double { height * pow(Double(max(1, alphanumerics)), 0.25) }
        /// Letters and digits in the group.
        var alphanumerics: Int { words.reduce(0) { $0 + $1.text.unicodeScalars.filter(\.properties.isAlphabetic).count + $1.text.filter(\.isNumber).count } }
        /// Confidence (0–100) weighted by characters.
        var confidence: Double { TextGrouper.confidence(words) }
    }

    /// Character-weighted mean confidence (0–100) of `words`.
    static func confidence(_ words: [RecognisedWord]) -> Double {
        var sum = 0.0, weight = 0.0
        for w in words {
            let n = Double(max(1, w.text.count))
            sum += w.confidence * n
            weight += n
        }
        return weight > 0 ? sum / weight : 0
    }

    /// Words below this confidence (0–100) are texture or noise, not lettering.
    static let minimumConfidence = 45.0

    /// Whether a word is worth grouping: some letters or digits, not a lone mark read from texture.
    static func isWordLike(_ w: RecognisedWord) -> Bool {
        let alnum = w.text.filter { $0.isLetter || $0.isNumber }.count
        return alnum >= 1 && Double(alnum) >= 0.5 * Double(w.text.count) && w.confidence >= minimumConfidence
    }

    /// The groups, largest lettering first.
    static func groups(_ words: [RecognisedWord]) -> [Group] {
        let ws = words.filter(isWordLike)
        guard !ws.isEmpty else { return [] }
        var parent = Array(ws.indices)
        func find(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]
                i = parent[i]
            }
            return i
        }
        for i in ws.indices {
            for j in ws.indices where j > i {
                let a = ws[i], b = ws[j]
                let ha = a.capHeight, hb = b.capHeight
                let h = max(ha, hb), ratio = max(ha, hb) / min(ha, hb)
                let gapX = Double(max(a.left, b.left) - min(a.right, b.right))
                let gapY = Double(max(a.top, b.top) - min(a.bottom, b.bottom))
                let together: Bool
                if a.line == b.line || gapY < -0.5 * min(ha, hb) {
                    // Same text line: a word space, not the wide gap between title and author.
                    // Tesseract's word boxes are noisy: a tight gap joins whatever the sizes say.
                    together = gapX < 1.0 * min(ha, hb) || (gapX < 1.8 * h && ratio < 1.3)
                } else {
                    // Stacked lines of one block: overlapping columns, close lines, similar size.
                    together = gapX < 0.5 * h && gapY < 1.3 * h && ratio < 1.4
                }
                if together { parent[find(i)] = find(j) }
            }
        }
        var byRoot: [Int: [RecognisedWord]] = [:]
        for i in ws.indices { byRoot[find(i), default: []].append(ws[i]) }
        return byRoot.values
            .map { Group(words: $0.sorted { $0.line != $1.line ? $0.line < $1.line : $0.left < $1.left }) }
            .sorted { $0.prominence > $1.prominence }
    }
}
