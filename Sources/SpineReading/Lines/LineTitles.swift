import Foundation
import ScanProtocol

/// Titles from the photo's own text lines (`PhotoLineReader`) for spines that reading spine by spine gave
/// none: a line whose centre lies on the spine and that runs along it (across the photo for a lying book,
/// up or down it for a standing one) is that spine's text. Of a spine's lines the thickest that can be a
/// title is given: read surely, two words or more, every one in the word list, not a call number, an edition
/// line, a call number, a person's name or two people's names, not plainly part of a title. The evidence is
/// the line's size and its standing as a line of its own, not its place in a reading order. The titles reading
/// gave are checked against the same lines (`LineCheck`).
struct LineTitles: Sendable {
    /// A line given as a title: the line, its title and the name cut from it, if any.
    typealias LineTitle = (line: PhotoLine, title: (title: String, name: String?))

    let tuning: ReadingTuning

    /// `texts` (one per spine of `spines`) with titles given from `lines` where they had none, and the titles they
    /// had checked against the lines (`checked`).
    func filled(_ texts: [SpineText], spines: [SpineOutline], lines: [PhotoLine], lexicon: TesseractLexicon) -> [SpineText] {
        var out = texts
        for (i, spine) in spines.enumerated() where i < out.count {
            let lying = spine.pose == .lying
            let onSpine = lines.filter { ($0.orientation == .horizontal) == lying && Self.contains(spine, $0.center) }
            let candidates = Self.candidates(onSpine)
            // A line with one rare word may take an empty place (no title, a name withdrawn), never a title read.
            let best = bestTitle(candidates, lexicon: lexicon), open = bestTitle(candidates, lexicon: lexicon, rareWord: true)
            let bestOrOneWord = open ?? (ReadingRule.oneWordLine.isOn ? oneWordTitle(onSpine) : nil)
            if let current = out[i].title {
                guard ReadingRule.lineCheck.isOn else { continue }
                out[i] = checked(
                    out[i], title: current, best: best, open: open, bestOrOneWord: bestOrOneWord,
                    check: LineCheck(lines: onSpine, tuning: tuning), lexicon: lexicon)
                continue
            }
            guard let best = bestOrOneWord else { continue }
            let read = onSpine.map(\.text).joined(separator: " ")
            out[i] = SpineText(
                title: best.title.title, author: best.title.name ?? out[i].author, text: out[i].text ?? read,
                confidence: best.line.confidence, orientation: best.line.orientation)
        }
        return out
    }

    /// `text`, whose title read crop by crop is `title`, as the spine's lines leave it (`check`): a piece of the
    /// author's name gives way to the best line title (`bestOrOneWord`: of two words or more, else the thickest
    /// line as one word) or, with none, is no title (the name is the author); a title gives way to a line's of
    /// two words or more (`best`; `open`, which may hold a rare word, when the title is a name) when it is a name
    /// or a part of it (`givesWay`) or ran on into another line (`isLeadingPart`); a misreading or a misspacing of a surely read line is that line; a single word no line
    /// reads gives way to the best line title, or is no title.
    private func checked(
        _ text: SpineText, title: String, best: LineTitle?, open: LineTitle?, bestOrOneWord: LineTitle?, check: LineCheck,
        lexicon: TesseractLexicon
    ) -> SpineText {
        var out = text
        if let name = check.nameHolding(title) {
            out.title = bestOrOneWord?.title.title
            out.author = bestOrOneWord?.title.name ?? name
            return out
        }
        let isName = TitleEvidence.isPersonName(title) || TitleEvidence.isNames(title, isWord: lexicon.knowsInLowerCase)
        if let best = isName ? open : best,
            Self.givesWay(title, to: best.title.title, lexicon: lexicon) || Self.isLeadingPart(best.title.title, of: title, line: best.line, lines: check.lines)
        {
            out.title = best.title.title
            out.author = best.title.name ?? out.author
            return out
        }
        if let corrected = check.respacing(of: title, lexicon: lexicon) ?? check.completion(of: title) ?? check.correction(of: title, lexicon: lexicon) {
            out.title = corrected
            return out
        }
        if check.isUnsupportedWord(title) {
            out.title = bestOrOneWord?.title.title
            out.author = bestOrOneWord?.title.name
        }
        return out
    }

    /// Whether a spine's title read crop by crop gives way to `line`'s, a title of the photo's lines on the same
    /// spine: when it is a person's name or two people's names, or a part of the line's title ("The Fall" of
    /// "The Fall of Afghanistan", "BOB WOOLMER" of "BOB WOOLMER ON BATTING"). A line that is only a part of the
    /// title read never replaces it.
    static func givesWay(_ title: String, to line: String, lexicon: TesseractLexicon) -> Bool {
        let read = SpineReader.letters(title), other = SpineReader.letters(line)
        if TitleEvidence.isPersonName(title) || TitleEvidence.isNames(title, isWord: lexicon.knowsInLowerCase) {
            // Not to the same name read worse ("Michel Biron" as "Mil Bron").
            return Double(editDistance(Array(read), Array(other))) > sameNameDistance * Double(read.count)
        }
        return read != other && SpineReader.contains(line, part: title)
    }

    /// Whether `part`, the title of `line`, is how a spine's title read crop by crop begins (whole words), and the
    /// rest of that title is a line of its own on the spine (one of `lines`), thinner than `line`: a subtitle
    /// or the author's name read on into the title ("Polymer Fiber Optics" + "Materials, Physics, and
    /// Applications"), two words or more, not starting with a connective. Two lines of one title in like
    /// lettering ("THE VICAR" over "OF WAKEFIELD") stay whole.
    static func isLeadingPart(_ part: String, of title: String, line: PhotoLine, lines: [PhotoLine]) -> Bool {
        let tokens = title.split(whereSeparator: \.isWhitespace).filter { !SpineReader.letters($0).isEmpty }
        let words = tokens.map { SpineReader.letters($0) }
        let piece = SpineReader.letters(part)
        // The rest is two words or more: a title's last word often stands smaller on a line of its own ("THE TIME" over
        // "MACHINE").
        guard !piece.isEmpty, let count = words.indices.first(where: { words[...$0].joined() == piece }), count < words.count - 2 else {
            return false
        }
        // "THE COMPLETE WHO'S WHO" + "OF TEST CRICKETERS" is one title.
        guard !TextGrouper.connectives.contains(TextGrouper.key(String(tokens[count + 1]))) else { return false }
        let rest = Array(words[(count + 1)...].joined())
        return lines.contains { other in
            let letters = Array(SpineReader.letters(other.text))
            guard other.thickness < restThickness * line.thickness, letters.count >= 3, letters.count <= rest.count else { return false }
            return Double(editDistance(letters, Array(rest.prefix(letters.count)))) <= restDistance * Double(letters.count)
        }
    }

    /// The rest of a title read crop by crop is another line's when a line at most this share of the title
    /// line's thickness reads as its beginning within `restDistance` edits per letter.
    static let restThickness = 0.9
    static let restDistance = 0.25

    /// A line within this many edits per letter of a name is that name misread.
    static let sameNameDistance = 0.5

    /// The Levenshtein distance between `a` and `b`; with `inside`, the fewest edits that turn `a` into some run
    /// of `b`'s characters (what comes before and after the run is free).
    static func editDistance(_ a: [Character], _ b: [Character], inside: Bool = false) -> Int {
        var previous = inside ? Array(repeating: 0, count: b.count + 1) : Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() { current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)) }
            previous = current
        }
        return inside ? (previous.min() ?? 0) : previous[b.count]
    }

    /// Of `candidates`, the one whose title is given: the thickest line that can be a title, or two lines of
    /// one title (`candidates`) at least `pairShare` its thickness that together can be one.
    /// `rareWord`: a line may hold one word the word list does not know (`holdsOneRareWord`).
    private func bestTitle(_ candidates: [PhotoLine], lexicon: TesseractLexicon, rareWord: Bool = false) -> LineTitle? {
        let titles = candidates.compactMap { line in title(line, lexicon: lexicon, rareWord: rareWord).map { (line: line, title: $0) } }
        let singles = titles.filter { !$0.line.isPair }, pairs = titles.filter(\.line.isPair)
        guard let thickest = (singles.isEmpty ? pairs : singles).max(by: { $0.line.thickness < $1.line.thickness }) else { return nil }
        let pair = pairs.filter { $0.line.thickness >= Self.pairShare * thickest.line.thickness }.max { $0.line.thickness < $1.line.thickness }
        return pair ?? thickest
    }

    /// The spine's thickest line as its title when it is one word (`oneWordTitle(_:)`), for a spine no line of
    /// two words or more can title: most one-word titles are words no word list holds ("NEUROMANCER",
    /// "MICROADVENTURES", "Middlemarch"), and the largest lettering on a spine is its title more often than not.
    func oneWordTitle(_ lines: [PhotoLine]) -> LineTitle? {
        guard let thickest = lines.max(by: { $0.thickness < $1.thickness }), let title = oneWordTitle(thickest) else { return nil }
        return (thickest, (title, nil))
    }

    /// The title `line` gives as one word, or nil: read with at least `oneWordConfidence`, one word of
    /// `oneWordLetters` letters or more (shorter ones are as often fragments: "HAAFF", "LYSSE") and nothing but
    /// letters (and a hyphen or apostrophe), not a call number, "EDITION" or a given name alone
    /// ("WILLIAM").
    func oneWordTitle(_ line: PhotoLine) -> String? {
        let text = TextGrouper.withoutStrayMarks(SpineReader.clean(line.text), keepingApostrophe: true)
        guard line.confidence >= Self.oneWordConfidence, LineCheck.words(text).count == 1, text.filter(\.isLetter).count >= Self.oneWordLetters,
            text.allSatisfy({ $0.isLetter || $0 == "-" || $0 == "'" || $0 == "’" }), !TitleEvidence.isNotATitle(text),
            !TitleEvidence.isGivenName(SpineReader.letters(text)), SpineReader.letters(text) != "edition"
        else { return nil }
        return text
    }

    /// The least confidence (0–1) and letters of a line given as a one-word title.
    static let oneWordConfidence = 0.95
    static let oneWordLetters = 6

    /// The least thickness, as a share of the thickest single line's, of two lines given together.
    static let pairShare = 0.8
    /// Two lines are one title's when their thicknesses differ by at most this factor, their middles lie at most
    /// `pairSpacing` thicknesses apart, and they overlap along their length by `pairOverlap` of the shorter.
    static let pairThicknessRatio = 1.3
    static let pairSpacing = 1.8
    static let pairOverlap = 0.3

    /// Each line, and each two lines that run the same way one right under the other, alike in size (a title
    /// set on two lines of a wide spine: "THE VICAR" over "OF WAKEFIELD"), as one line of both texts.
    static func candidates(_ lines: [PhotoLine]) -> [PhotoLine] {
        var out = lines
        let ordered = lines.sorted { $0.orientation != $1.orientation ? $0.orientation.rawValue < $1.orientation.rawValue : $0.middle < $1.middle }
        for (a, b) in zip(ordered, ordered.dropFirst()) where a.orientation == b.orientation {
            let thin = min(a.thickness, b.thickness), thick = max(a.thickness, b.thickness)
            let overlap = min(a.end, b.end) - max(a.start, b.start), shorter = min(a.end - a.start, b.end - b.start)
            guard thin > 0, thick <= pairThicknessRatio * thin, b.middle - a.middle <= pairSpacing * (thin + thick) / 2,
                overlap >= pairOverlap * shorter
            else { continue }
            var pair = a
            pair.text = a.text + " " + b.text
            pair.confidence = min(a.confidence, b.confidence)
            pair.thickness = thin
            pair.isPair = true
            out.append(pair)
        }
        return out
    }

    /// The title `line` gives (and a name cut from it), or nil when it cannot be one.
    func title(_ line: PhotoLine, lexicon: TesseractLexicon, rareWord: Bool = false) -> (title: String, name: String?)? {
        guard line.confidence >= tuning.lineTitleConfidence else { return nil }
        let trimmed = TitleEvidence.trimmed(SpineReader.clean(line.text))
        let words = trimmed.title.split(whereSeparator: \.isWhitespace)
        guard words.count >= tuning.lineTitleWords, trimmed.title.filter(\.isLetter).count >= tuning.lineTitleLetters,
            lexicon.knownShare(of: trimmed.title) >= tuning.lineTitleKnownWords || rareWord && Self.holdsOneRareWord(trimmed.title, line: line, lexicon: lexicon),
            !TitleEvidence.isNotATitle(trimmed.title),
            !TextGrouper.isIncompleteTitle(trimmed.title), !TitleEvidence.isPersonName(trimmed.title),
            !TitleEvidence.isNames(trimmed.title, isWord: lexicon.knowsInLowerCase)
        else { return nil }
        return trimmed
    }

    /// Whether the word list knows all words of `title`, read on `line` (one line, not two read as one), but one, when
    /// PP-OCR read the line surely (`rareWordConfidence`), that one is a long word of letters alone
    /// (`rareWordLetters`) and an ordinary word stands beside it: a title's rare word ("Thermosets and Composites", "Rubberlike Elasticity") that the
    /// photo's lettering shows plainly. A misreading with digits or marks in it ("THE5OBOOKZ") is no such word.
    static func holdsOneRareWord(_ title: String, line: PhotoLine, lexicon: TesseractLexicon) -> Bool {
        guard line.confidence >= rareWordConfidence, !line.isPair else { return false }
        let words = title.split(whereSeparator: \.isWhitespace).map { $0.trimmingCharacters(in: .punctuationCharacters) }.filter { !$0.isEmpty }
        let unknown = words.filter { !lexicon.knows($0) && !$0.allSatisfy(\.isNumber) }
        guard unknown.count == 1, let rare = unknown.first, rare.count >= rareWordLetters, rare.allSatisfy(\.isLetter),
            words.first?.lowercased() != "by", !Self.isGluedName(rare)
        else { return false }
        // Beside it an ordinary word of four letters or more, not only names or connectives; never a credit ("BY
        // RUSSELL HOLMESBY").
        return words.contains { word in
            word != rare && word.count >= 4 && !TextGrouper.connectives.contains(TextGrouper.key(word))
                && !TitleEvidence.isGivenName(word) && lexicon.knowsInLowerCase(word)
        }
    }

    /// Whether `word` is a given name of four letters or more with more letters glued on: a name read without its
    /// space ("MARYSHELLEY", "CAROLANN"), no rare word of a title.
    static func isGluedName(_ word: String) -> Bool {
        let letters = Array(word.lowercased())
        guard letters.count >= 7 else { return false }
        return (4...(letters.count - 3)).contains { TitleEvidence.isGivenName(String(letters[..<$0])) }
    }

    /// The least confidence (0–1) of a line whose one rare word is taken as a word, and that word's least letters.
    static let rareWordConfidence = 0.95
    static let rareWordLetters = 6

    /// Whether `point` lies within the spine's outline (its box when it has none).
    static func contains(_ spine: SpineOutline, _ point: NormalizedPoint) -> Bool {
        guard let polygon = spine.polygon, polygon.count >= 3 else {
            let b = spine.box
            return point.x >= b.x && point.x <= b.x + b.width && point.y >= b.y && point.y <= b.y + b.height
        }
        var inside = false
        var j = polygon.count - 1
        for i in polygon.indices {
            let a = polygon[i], b = polygon[j]
            if (a.y > point.y) != (b.y > point.y), point.x < (b.x - a.x) * (point.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }
}
