import Foundation

/// What the reading knows of people's names, read from maintained data rather than written in code: the US Census
/// first-name (male and female) and surname lists that Debian's libtext-names-perl carries in `Text/Names.pm`,
/// and the ordinary (lower-case) words of wamerican. A spine's line is a person's name when it starts with a
/// given name and ends in a surname or a word that is no ordinary word ("John Grisham", "Tom Brown"; not
/// "Grace Notes").
package struct PersonNames: Sendable {
    /// Where the lists are.
    package struct Sources: Sendable {
        /// The Perl module whose heredocs hold the Census lists.
        package var names: String
        /// The English word list whose lower-case lines are ordinary words.
        package var englishWords: String

        /// The Debian packages' places (scripts/bootstrap installs them; the Debian package depends on them).
        package static let debian = Sources(names: "/usr/share/perl5/Text/Names.pm", englishWords: "/usr/share/dict/american-english")
    }

    private let givenNames: Set<UInt64>
    private let surnames: Set<UInt64>
    private let ordinaryWords: Set<UInt64>
    /// Files that could not be read (their lists are empty: no given name is known, only initials mark a name).
    package let missing: [String]

    /// The lists of `sources`.
    package init(sources: Sources = .debian) {
        var missing: [String] = []
        var words = Set<UInt64>()
        if let data = FileManager.default.contents(atPath: sources.englishWords) {
            Self.insertLowerCaseLines(of: [UInt8](data), into: &words)
        } else {
            missing.append(sources.englishWords)
        }
        var given = Set<UInt64>(), surnames = Set<UInt64>()
        if let data = FileManager.default.contents(atPath: sources.names) {
            let module = String(decoding: data, as: UTF8.self)
            for name in Self.censusNames(in: module, lists: ["COMMON_MALE_FIRSTNAMES", "COMMON_FEMALE_FIRSTNAMES"]) {
                given.insert(ReadingKnowledge.hash(ReadingKnowledge.key(name)))
            }
            for name in Self.censusNames(in: module, lists: ["COMMON_SURNAMES"]) {
                surnames.insert(ReadingKnowledge.hash(ReadingKnowledge.key(name)))
            }
        } else {
            missing.append(sources.names)
        }
        givenNames = given
        self.surnames = surnames
        ordinaryWords = words
        self.missing = missing
    }

    /// The installed lists, read once per process.
    package static let installed = PersonNames()

    /// Whether `word` (any case, its letters compared) is a Census given name ("John", "Grace").
    package func isGivenName(_ word: String) -> Bool { contains(word, in: givenNames) }

    /// Whether `word` is a given name and no ordinary word: alone, it names a person ("Agatha", not "Grace").
    package func isOnlyAGivenName(_ word: String) -> Bool { isGivenName(word) && !isOrdinaryWord(word) }

    /// Whether `word` is a Census surname ("Brown", "Gibson").
    package func isSurname(_ word: String) -> Bool { contains(word, in: surnames) }

    /// Whether `word` is an ordinary English word (a lower-case line of the word list: "notes", "grace").
    package func isOrdinaryWord(_ word: String) -> Bool { contains(word, in: ordinaryWords) }

    /// How many given names and surnames are known.
    package var counts: (given: Int, surnames: Int) { (givenNames.count, surnames.count) }

    private func contains(_ word: String, in set: Set<UInt64>) -> Bool {
        let key = ReadingKnowledge.key(word)
        return !key.isEmpty && set.contains(ReadingKnowledge.hash(key))
    }

    /// The names of the `lists` heredocs of Names.pm: each line's upper-case words ("JAMES 3.318 3.318 1",
    /// "SMITH 1.006 1.006 1 JOHNSON 0.810 1.816 2").
    static func censusNames(in module: String, lists: [String]) -> [String] {
        var out: [String] = []
        var inList = false
        for line in module.split(separator: "\n", omittingEmptySubsequences: false) {
            if lists.contains(where: { line.hasPrefix("$\($0) = <<ENDNAMES") }) {
                inList = true
            } else if line.hasPrefix("ENDNAMES") {
                inList = false
            } else if inList {
                out += line.split(separator: " ").filter { $0.allSatisfy(\.isLetter) }.map(String.init)
            }
        }
        return out
    }

    /// The key hash of each line of `bytes` that starts with a lower-case ASCII letter (an ordinary word, not a
    /// name), as `ReadingKnowledge.insertKeys` hashes it.
    static func insertLowerCaseLines(of bytes: [UInt8], into set: inout Set<UInt64>) {
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            if end > start, bytes[start] >= 0x61, bytes[start] <= 0x7A {
                ReadingKnowledge.insertKeys(ofLinesIn: Array(bytes[start..<end]), into: &set)
            }
            start = end + 1
        }
    }
}
