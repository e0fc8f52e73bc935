/// The text helpers the spine reader and the other reading stages share: a reading's letters, whether two
/// readings are one title, and the clean-up of a recognizer's words.
extension SpineReader {
    /// Whether two readings are the same title: the same letters and digits, case aside.
    static func sameTitle(_ a: String, _ b: String) -> Bool {
        letters(a) == letters(b)
    }

    /// The letters and digits of `s`, lower case: what two readings of one title share.
    static func letters<S: StringProtocol>(_ s: S) -> String { String(s.lowercased().filter { $0.isLetter || $0.isNumber }) }

    /// Whether `title` holds the words of `part` in a row (letters and digits, case aside).
    static func contains(_ title: String, part: String) -> Bool {
        func keys(_ s: String) -> [String] { s.split(whereSeparator: \.isWhitespace).map(letters).filter { !$0.isEmpty } }
        let whole = keys(title), piece = keys(part)
        guard !piece.isEmpty, piece.count <= whole.count else { return false }
        return (0...(whole.count - piece.count)).contains { Array(whole[$0..<($0 + piece.count)]) == piece }
    }

    /// Trims stray marks at the ends of a reading, gives back articles run into the next word and closes
    /// hyphenated words Tesseract split at the hyphen.
    static func clean(_ s: String) -> String {
        let words = TextGrouper.withoutStrayMarks(s).split(separator: " ", omittingEmptySubsequences: false).map(unglued)
        return rejoinedAtHyphens(words)
    }

    /// Words joined with spaces, except after a word ending in a hyphen that follows a letter when the next
    /// word starts with one: Tesseract's word spacing splits a hyphenated word there ("Moby- Dick" is
    /// Moby-Dick). A dash between spaces ("Kim - Kipling") and a hyphen alone stay as read.
    static func rejoinedAtHyphens(_ words: [String]) -> String {
        var out = ""
        for (i, word) in words.enumerated() {
            if i > 0 {
                let previous = Array(words[i - 1])
                let split = previous.count >= 2 && previous[previous.count - 1] == "-" && previous[previous.count - 2].isLetter
                    && word.first?.isLetter == true
                if !split { out += " " }
            }
            out += word
        }
        return out
    }

    /// A word with the article "a" run into it, which Tesseract's word spacing often drops before a
    /// capital ("aNobody", "AShropshire"), given back as two: "a Nobody", "A Shropshire". Only "a"
    /// followed by a capital and a small letter (so "McTeague", "ABBEY" and "Aeneid" stay as read).
    static func unglued(_ word: Substring) -> String {
        let characters = Array(word)
        guard characters.count >= 3, characters[0] == "a" || characters[0] == "A", characters[1].isUppercase, characters[2].isLowercase
        else { return String(word) }
        return String(characters[0]) + " " + String(characters.dropFirst())
    }
}
