/// What the photo's own text lines (`PhotoLineReader`) say of a title read crop by crop on one spine: that it
/// is a piece of the author's name, a misreading of a line read surely in known words, or a single word no
/// line on the spine reads at all. Tesseract reads a spine's largest or clearest lettering, which is as often
/// the author's name or a fragment as the title; PP-OCR reads the spine's lines whole, so they are the
/// second witness.
struct LineCheck: Sendable {
    /// The spine's lines: those whose centre lies on it and that run along it.
    let lines: [PhotoLine]
    let tuning: ReadingTuning

    /// The person's name read on the spine of which `title` is a piece, or nil: a line of two words that is a
    /// name (`TitleEvidence.isPersonName`) whose given name or surname the title is alone ("WILLIAM" of
    /// "WILLIAM GIBSON", "FYFFE" of "ALLEN FYFFE"), or the name cut off a line before or after its title
    /// (`TitleEvidence.trimmed`) with the title's letters ("DAVIDSCHWARZ" of "DAVID SCHWARZ ALL BETS ARE OFF").
    /// A title that is a whole name line stays (a novel may be named after its hero: "Jane Eyre"), and so does
    /// a part of a longer line ("TOM JONES" of "TOM JONES FIELDING", "WAVERLEY" of "WALTER SCOTT WAVERLEY").
    func nameHolding(_ title: String) -> String? {
        let titleWords = Self.words(title)
        for line in lines where line.confidence >= tuning.lineTitleConfidence {
            let cleaned = SpineReader.clean(line.text)
            if let cut = TitleEvidence.trimmed(cleaned).name, SpineReader.letters(cut) == SpineReader.letters(title) { return cut }
            let nameWords = Self.words(cleaned)
            guard titleWords.count == 1, nameWords.count == 2, titleWords[0] == nameWords[0] || titleWords[0] == nameWords[1],
                TitleEvidence.isPersonName(cleaned)
            else { continue }
            return cleaned
        }
        return nil
    }

    /// The title a surely read line gives in place of `title` when `title` is a misreading of it: `title` has a
    /// word the word list does not know, the line (read with at least `sureConfidence`) has none, and their
    /// letters differ by at most `misreadDistance` edits per letter of `title` ("FVEREST" read "EVEREST", "A Z00
    /// IN MY LUGGAGE" read in "GERALD DURRELL A ZOO IN MY LUGGAGE", the name cut off). Nil otherwise.
    func correction(of title: String, lexicon: TesseractLexicon) -> String? {
        guard lexicon.knownShare(of: title) < 1 else { return nil }
        let letters = Array(SpineReader.letters(title))
        guard !letters.isEmpty else { return nil }
        var best: (distance: Int, text: String)?
        for line in lines where line.confidence >= Self.sureConfidence {
            let whole = TextGrouper.withoutStrayMarks(SpineReader.clean(line.text), keepingApostrophe: true)
            // The line as read, and without a name before or after its title ("GERALD DURRELL A ZOO IN MY LUGGAGE").
            let trimmed = TitleEvidence.trimmed(whole).title
            for text in trimmed == whole ? [whole] : [whole, trimmed] {
                guard text.contains(where: \.isLetter), lexicon.knownShare(of: text) >= 1, !TitleEvidence.isNotATitle(text) else { continue }
                let distance = LineTitles.editDistance(letters, Array(SpineReader.letters(text)))
                guard Double(distance) <= Self.misreadDistance * Double(letters.count), distance < (best?.distance ?? .max) else { continue }
                best = (distance, text)
            }
        }
        return best?.text
    }

    /// The words of a surely read line (`sureConfidence`) with the letters of `title`, spaced otherwise, when
    /// the word list knows as large a share of them: Tesseract's word spacing glues and splits words that PP-OCR's
    /// reading of the whole line spaces right ("Out ofthe Crisis" read "Out of the Crisis", "THE OR vis GUIDE"
    /// read "THE ORVIS GUIDE"). Nil otherwise.
    func respacing(of title: String, lexicon: TesseractLexicon) -> String? {
        let letters = SpineReader.letters(title)
        guard !letters.isEmpty else { return nil }
        let known = lexicon.knownShare(of: title)
        for line in lines where line.confidence >= Self.sureConfidence {
            let text = TextGrouper.withoutStrayMarks(SpineReader.clean(line.text), keepingApostrophe: true)
            guard SpineReader.letters(text) == letters, Self.words(text) != Self.words(title), lexicon.knownShare(of: text) >= known else { continue }
            return text
        }
        return nil
    }

    /// The surely read line `title` was cut from: `title` (`readLetters` letters or more) begins or ends inside a
    /// word of a line read with at least `sureConfidence`, its other words the line's ("LON MUSK" of "ELON MUSK",
    /// "eak district" of "peak district : climbing", "The Kamogawa Foo" of "The Kamogawa Food Detectives"): the
    /// spine's box or its strip cut the lettering off. The line is taken without a name before or after its title
    /// or an edition line (`TitleEvidence.trimmed`), when that still holds the title and can be one; the thickest
    /// such line. Nil otherwise.
    func completion(of title: String) -> String? {
        let titleWords = Self.words(title)
        guard titleWords.joined().count >= Self.readLetters else { return nil }
        for line in lines.sorted(by: { $0.thickness > $1.thickness }) where line.confidence >= Self.sureConfidence {
            let text = TitleEvidence.trimmed(TextGrouper.withoutStrayMarks(SpineReader.clean(line.text), keepingApostrophe: true)).title
            guard Self.isCut(titleWords, from: Self.words(text)), !TitleEvidence.isNotATitle(text), !TitleEvidence.isPersonName(text) else { continue }
            return text
        }
        return nil
    }

    /// Whether `piece` (words) is a run of `words` cut inside a word at either end: its first word ends a word
    /// of `words`, its last begins the one where the run ends, the words between are the same, and one end is
    /// not a whole word.
    static func isCut(_ piece: [String], from words: [String]) -> Bool {
        guard let first = piece.first, let last = piece.last, piece.count <= words.count else { return false }
        for start in 0...(words.count - piece.count) {
            let run = Array(words[start..<(start + piece.count)])
            let inner = piece.count <= 2 || Array(piece[1..<(piece.count - 1)]) == Array(run[1..<(run.count - 1)])
            let ends = piece.count == 1 ? run[0].contains(first) : run[0].hasSuffix(first) && run[run.count - 1].hasPrefix(last)
            if inner, ends, run[0] != first || run[run.count - 1] != last { return true }
        }
        return false
    }

    /// Whether `title` is one word that no line on the spine reads although PP-OCR read lettering there (a
    /// line of `readLetters` letters or more at `lineTitleConfidence`): no line holds letters within
    /// `misreadDistance` edits per letter of it ("KLASS" where PP-OCR reads only "AFGHANISTAN-THE GREAT GAME
    /// REVISITED"; "IDGES" beside "CICERONE"). One word alone is as often a surname, an imprint or a fragment
    /// as a title, and the second witness read the spine without seeing it. On a spine where PP-OCR read
    /// nothing the word stays.
    func isUnsupportedWord(_ title: String) -> Bool {
        guard Self.words(title).count == 1,
            lines.contains(where: { $0.confidence >= tuning.lineTitleConfidence && $0.text.filter(\.isLetter).count >= Self.readLetters })
        else { return false }
        let letters = Array(SpineReader.letters(title))
        return !lines.contains { line in
            Double(LineTitles.editDistance(letters, Array(SpineReader.letters(line.text)), inside: true))
                <= Self.misreadDistance * Double(letters.count)
        }
    }

    /// A line corrects a title only when PP-OCR read it with at least this confidence (0–1).
    static let sureConfidence = 0.9
    /// Letters a line needs for PP-OCR to have read lettering on the spine.
    static let readLetters = 4
    /// Edits per letter within which a line's letters are a reading of the same lettering.
    static let misreadDistance = 0.34

    /// The words of `text` that hold letters or digits, as their letters and digits in lower case.
    static func words(_ text: String) -> [String] {
        text.split(whereSeparator: \.isWhitespace).map { SpineReader.letters($0) }.filter { !$0.isEmpty }
    }
}
