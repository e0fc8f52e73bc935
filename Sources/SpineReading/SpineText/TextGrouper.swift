import Foundation

/// Splits the words read on one spine into text groups (runs of similar size that sit together) and
/// picks the title (the largest lettering) and the author (the next group).
enum TextGrouper {
    /// A run of words read together, in reading order.
    struct Group: Sendable, Hashable {
        var words: [RecognisedWord]
        /// Words joined to the group though Tesseract gave them almost no confidence (see `rescue`):
        /// part of its text, not of its confidence.
        var rescued: [RecognisedWord] = []
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
        /// Whether this group starts before `other` in reading order.
        func readsBefore(_ other: Group) -> Bool {
            guard let a = words.first, let b = other.words.first else { return false }
            return TextGrouper.readingOrder(a, b)
        }
        /// Confidence (0–100) weighted by characters, over the words Tesseract was confident of.
        var confidence: Double { TextGrouper.confidence(words.filter { !rescued.contains($0) }) }
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

    /// Prominences within this ratio count as a tie that reading order breaks.
    static let nearTie = 0.9

    /// Words below this confidence (0–100) are texture or noise, not lettering.
    static let minimumConfidence = 45.0

    /// Whether a word is worth grouping: some letters or digits, not a lone mark read from texture.
    static func isWordLike(_ w: RecognisedWord) -> Bool {
        let alnum = w.text.filter { $0.isLetter || $0.isNumber }.count
        return alnum >= 1 && Double(alnum) >= 0.5 * Double(w.text.count) && w.confidence >= minimumConfidence
    }

    static func readingOrder(_ a: RecognisedWord, _ b: RecognisedWord) -> Bool {
        a.line != b.line ? a.line < b.line : a.left < b.left
    }

    /// Tesseract's LSTM sometimes reads the last word of a line right and scores it near 0 (e.g.
    /// "DAISY" 95, "MILLER" 2). A low-confidence word joins a group when it is plainly a word of that
    /// line: letters only (an inner hyphen or apostrophe allowed), a word space from the group's first or
    /// last word on the word's own text line or between two of them, the same letter size, and the same
    /// case style (all capitals with all capitals). It adds to the text, never to the confidence.
    static func rescue(_ group: Group, from words: [RecognisedWord]) -> Group {
        guard ReadingRule.wordRescue.isOn else { return group }
        var g = group
        let upper = isAllCapitals(g.words)
        var changed = true
        while changed {
            changed = false
            // A rescued word may be kept without its stray marks: it is found by its place.
            for w in words where !g.words.contains(where: { $0.isSamePlace(as: w) }) && !isWordLike(w) {
                // A stray mark at either end ("/SENTIMENTAL") is texture beside the word, not part of it.
                let text = withoutStrayMarks(w.text, keepingApostrophe: true)
                let letters = text.filter(\.isLetter)
                let plain = text.allSatisfy { $0.isLetter || $0 == "-" || $0 == "'" || $0 == "’" }
                let possessive = text.hasSuffix("'") || text.hasSuffix("’")
                guard plain, letters.count >= 2, text.first?.isLetter == true, text.dropLast(possessive ? 1 : 0).last?.isLetter == true,
                    letters.allSatisfy(\.isUppercase) == upper
                else { continue }
                let ratio = max(w.capHeight, g.height) / max(1, min(w.capHeight, g.height))
                guard ratio < 1.2 else { continue }
                let reach = rescueGap * g.height
                // An article before a title sits a little further off as often as not ("THE  WAY WE LIVE NOW").
                let articleReach = articles.contains(key(text)) ? rescueArticleGap * g.height : reach
                // Measured on the word's own line: a group of two lines ends a line with its last word
                // there ("THE WAR [OF]" over "THE WORLDS").
                let line = g.words.filter { $0.line == w.line }
                guard let first = line.first, let last = line.last else { continue }
                let after = w.left > last.right && Double(w.left - last.right) < reach
                let before = w.right < first.left && Double(first.left - w.right) < articleReach
                // Between two of the group's words on their line.
                let inside = line.contains { $0.right <= w.left && Double(w.left - $0.right) < reach }
                    && line.contains { $0.left >= w.right && Double($0.left - w.right) < reach }
                guard after || before || inside else { continue }
                var kept = w
                kept.text = text
                g.words = (g.words + [kept]).sorted(by: readingOrder)
                g.rescued.append(kept)
                changed = true
                break
            }
        }
        return g
    }

    /// Groups that rescued the same word are one run of words ("Lady [Audley's]" and "[Audley's] Secret").
    static func joiningShared(_ groups: [Group]) -> [Group] {
        var out: [Group] = []
        for group in groups {
            var merged = group
            func holds(_ a: Group, rescuedBy b: Group) -> Bool { b.rescued.contains { r in a.words.contains { $0.isSamePlace(as: r) } } }
            while let i = out.firstIndex(where: { holds(merged, rescuedBy: $0) || holds($0, rescuedBy: merged) }) {
                let other = out.remove(at: i)
                let extra = other.words.filter { w in !merged.words.contains { $0.isSamePlace(as: w) } }
                merged = Group(
                    words: (merged.words + extra).sorted(by: readingOrder),
                    rescued: merged.rescued + other.rescued.filter { r in !merged.rescued.contains { $0.isSamePlace(as: r) } })
            }
            out.append(merged)
        }
        return out
    }

    /// How far (in the group's cap heights) a word may sit from its line's group to be rescued. On the 40
    /// photos (2026-11-26, fourth session, stray marks dropped): 26.7 % exact, 88.1 % precision at 0.8;
    /// 26.8 / 87.9 % at 1.0.
    static let rescueGap = 0.8
    /// The same for an article ("the", "a", "an") before the group: 1 title more on the 40 photos, none
    /// wrong (the same at 1.6).
    static let rescueArticleGap = 1.2

    /// Marks that cling to the ends of a reading (a word, a title) from the texture, edges and bands beside it.
    static let strayMarks: Set<Character> = [
        "/", "\\", "|", "=", "\"", "'", "`", "“", "”", "‘", "’", "_", "~", "*", "«", "»", "(", ")", "[", "]", "-", "—", ".", ",", ":", ";",
    ]

    /// `text` without stray marks and spaces at either end; a closing apostrophe ("WIVES'") stays when
    /// `keepingApostrophe`.
    static func withoutStrayMarks(_ text: String, keepingApostrophe: Bool = false) -> String {
        func stray(_ c: Character) -> Bool { strayMarks.contains(c) || c == " " }
        func strayAtEnd(_ c: Character) -> Bool { stray(c) && !(keepingApostrophe && (c == "'" || c == "’")) }
        return String(text.drop(while: stray).reversed().drop(while: strayAtEnd).reversed())
    }

    /// The groups, largest lettering first. With `wholeLines` (PP-OCR, whose detector has parted the lines
    /// already), words of two lines side by side never join; stacked lines still may.
    static func groups(_ words: [RecognisedWord], wholeLines: Bool = false) -> [Group] {
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
                if wholeLines, a.line != b.line, gapY < -0.5 * min(ha, hb) {
                    together = false
                } else if a.line == b.line || gapY < -0.5 * min(ha, hb) {
                    // Same text line: a word space, not the wide gap between title and author.
                    // Tesseract's word boxes are noisy: a tight gap joins whatever the sizes say.
                    // A word space is about half the cap height; title and author on one line sit
                    // further apart or differ in size.
                    together = gapX < 0.8 * min(ha, hb) || (gapX < 1.3 * h && ratio < 1.2)
                } else {
                    // Stacked lines of one block: overlapping columns, close lines, similar size.
                    together = gapX < 0.5 * h && gapY < 1.3 * h && ratio < 1.4
                }
                if together { parent[find(i)] = find(j) }
            }
        }
        var byRoot: [Int: [RecognisedWord]] = [:]
        for i in ws.indices { byRoot[find(i), default: []].append(ws[i]) }
        var out = joiningShared(byRoot.values.map { rescue(Group(words: $0.sorted(by: readingOrder)), from: words) })
            .sorted { $0.prominence > $1.prominence }
        // A spine names its title first about three times in four: when the two most prominent
        // groups are near-equal, the one read first is the title.
        if out.count >= 2, out[1].prominence >= nearTie * out[0].prominence, out[1].readsBefore(out[0]) {
            out.swapAt(0, 1)
        }
        return completingTitle(out)
    }

    /// Words that never end an English title and that start its continuation ("The Diary of a" +
    /// "Nobody", "The Portrait" + "of a Lady"); the first three also start one alone ("The" + "Prairie").
    static let articles: Set<String> = ["the", "a", "an"]
    static let connectives: Set<String> = articles.union(["of", "and", "&", "in", "on", "to", "for", "with", "at", "by", "from", "or"])

    /// Connectives that never start an English title in lower case or in capitals ("of Paradise",
    /// "AND PUNISHMENT"); a capitalised "Of" in mixed case does ("Of Human Bondage").
    static let neverFirst: Set<String> = ["of", "and", "&", "or"]

    /// Whether `text` is plainly only part of a title: it ends with a connective ("Reflections on the",
    /// "The Duchess of") or starts with one that never starts a title.
    static func isIncompleteTitle(_ text: String) -> Bool {
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init).filter { !key($0).isEmpty }
        guard let first = words.first, let last = words.last else { return false }
        if connectives.contains(key(last)) { return true }
        let capitalised = first.first?.isUppercase == true && first.dropFirst().contains(where: \.isLowercase)
        return neverFirst.contains(key(first)) && !capitalised
    }

    /// A word as the connective sets spell it: lower case, without surrounding punctuation ("&" kept).
    static func key(_ word: String) -> String { word == "&" ? word : word.lowercased().trimmingCharacters(in: .punctuationCharacters) }

    /// Whether every letter of `words` is a capital.
    static func isAllCapitals(_ words: [RecognisedWord]) -> Bool {
        words.allSatisfy { w in w.text.filter(\.isLetter).allSatisfy(\.isUppercase) }
    }

    /// The title group joined with the group next to it in reading order when English grammar says
    /// they are one title split by a wide word space: the title ends with a connective, or its
    /// neighbour before it is a lone article, or its neighbour after it starts with a connective.
    /// Only neighbours of similar size (ratio < 1.4) and the same case style join.
    static func completingTitle(_ groups: [Group]) -> [Group] {
        guard groups.count >= 2 else { return groups }
        var out = groups
        func alike(_ a: Group, _ b: Group) -> Bool {
            // A capitalised connective ("Of") in a mixed-case title, or a lone capital article, says nothing of case.
            let loneArticle = { (g: Group) in g.words.count == 1 && articles.contains(key(g.text)) }
            let sameCase = isAllCapitals(a.words) == isAllCapitals(b.words) || loneArticle(a) || loneArticle(b)
            let ratio = max(a.height, b.height) / max(1, min(a.height, b.height))
            return sameCase && ratio < 1.4
        }
        var joined = true
        while joined {
            joined = false
            let title = out[0]
            let order = out.indices.sorted { out[$0].readsBefore(out[$1]) }
            guard let at = order.firstIndex(of: 0) else { break }
            if at + 1 < order.count {
                let next = out[order[at + 1]]
                let endsOpen = title.words.last.map { connectives.contains(key($0.text)) } ?? false
                let startsJoined = next.words.first.map { connectives.contains(key($0.text)) && $0.text.first?.isLowercase == true } ?? false
                if (endsOpen || startsJoined) && alike(title, next) {
                    out[0] = Group(words: title.words + next.words, rescued: title.rescued + next.rescued)
                    out.remove(at: order[at + 1])
                    joined = true
                    continue
                }
            }
            if at > 0 {
                let before = out[order[at - 1]]
                if before.words.count == 1, articles.contains(key(before.text)), alike(before, title) {
                    out[0] = Group(words: before.words + title.words, rescued: before.rescued + title.rescued)
                    out.remove(at: order[at - 1])
                    joined = true
                }
            }
        }
        return out
    }
}
