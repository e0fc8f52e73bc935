/// What a spine's text says about which of its lines is the title: a person's name ("WILLIAM GIBSON",
/// "by Herman Melville") is the author's, an edition line ("Second Edition") ends a title, and a library's call
/// number ("DS 361") is no title.
enum TitleEvidence {
    /// Whether `text` is plainly not a title: a library call number
    /// (no word of three letters or more, and a letter somewhere: "DS 361", "A7 201"; "1500" stays a title),
    /// an edition line alone ("FIFTH EDITION") or a credit line (`isCredit`).
    static func isNotATitle(_ text: String) -> Bool {
        let words = text.split(whereSeparator: \.isWhitespace)
        guard !words.isEmpty else { return true }
        let callNumber = !words.contains { $0.filter(\.isLetter).count >= 3 } && words.contains { $0.contains(where: \.isLetter) }
        let editionLine = ReadingRule.editionLines.isOn && words.count >= 2 && TextGrouper.key(String(words[1])) == "edition"
            && editionWords.contains(TextGrouper.key(String(words[0])))
        return callNumber || editionLine || isCredit(words.map(String.init))
    }

    /// Whether `words` are a credit line: "by" or "with" in lower case and one to three capitalised words
    /// ("with Mark Nicholas", "by Keegan"), which no title starts so.
    static func isCredit(_ words: [String]) -> Bool {
        guard let first = words.first, first == "by" || first == "with", (2...4).contains(words.count) else { return false }
        return words.dropFirst().allSatisfy { w in
            w.first?.isUppercase == true && !TextGrouper.connectives.contains(TextGrouper.key(w))
        }
    }

    /// Whether `text` is a person's name: two to four words, each capitalised (or in capitals), that start
    /// with initials, or with a given name and end in a surname or a word that is no ordinary word
    /// (`PersonNames`), and hold no English function word ("Michel Biron",
    /// "J. R. R. TOLKIEN"); "by" before it is allowed.
    static func isPersonName(_ text: String) -> Bool {
        var words = text.split(whereSeparator: \.isWhitespace).map { String($0) }
        if let first = words.first, first.lowercased() == "by" { words.removeFirst() }
        guard (2...4).contains(words.count) else { return false }
        var sawInitial = false
        for (i, word) in words.enumerated() {
            let letters = word.filter(\.isLetter)
            guard let head = letters.first, head.isUppercase else { return false }
            if letters.count == 1, word.contains("."), i < words.count - 1 {
                sawInitial = true
                continue
            }
            guard letters.count >= 2, word.allSatisfy({ $0.isLetter || $0 == "-" || $0 == "'" || $0 == "’" || $0 == "." || $0 == "," })
            else { return false }
            if TextGrouper.connectives.contains(TextGrouper.key(word)) { return false }
        }
        // "TOM BROWN'S", "CHRIS BONINGTON'S": a possessive belongs to the title it opens, no author is printed so.
        if let last = words.last, last.hasSuffix("'s") || last.hasSuffix("’s") || last.hasSuffix("'S") || last.hasSuffix("’S") { return false }
        if sawInitial { return words.last.map { $0.filter(\.isLetter).count >= 2 } ?? false }
        guard ReadingRule.givenNames.isOn, let last = words.last else { return false }
        let names = PersonNames.installed
        return names.isGivenName(words[0]) && (names.isSurname(last) || !names.isOrdinaryWord(last))
    }

    /// Whether `text` names two people, joined by "and" or "&" ("Adrian Berry and John Arran", "Abelson and
    /// Sussman"): each side a person's name (`isPersonName`) or one capitalised word that `isWord` does not
    /// know as an ordinary (lower-case) word, a surname; "Pride and Prejudice" is no names.
    static func isNames(_ text: String, isWord: (String) -> Bool) -> Bool {
        let words = text.split(whereSeparator: \.isWhitespace).map { String($0) }
        guard let join = words.firstIndex(where: { $0.lowercased() == "and" || $0 == "&" }), join > 0, join < words.count - 1 else {
            return false
        }
        func isSide(_ side: ArraySlice<String>) -> Bool {
            if side.count == 1, let word = side.first {
                let letters = word.filter(\.isLetter)
                return letters.count >= 3 && letters.first?.isUppercase == true && !isWord(letters)
            }
            return isPersonName(side.joined(separator: " "))
        }
        return isSide(words[..<join]) && isSide(words[(join + 1)...])
    }

    /// Whether `word` alone is a given name and no ordinary word (`PersonNames.isOnlyAGivenName`), while that
    /// rule is on.
    static func isGivenName(_ word: String) -> Bool {
        ReadingRule.givenNames.isOn && PersonNames.installed.isOnlyAGivenName(word)
    }

    /// The number of words of `words` from `start`, at most `longest`, that form a person's name
    /// (`isPersonName`), longest first, or 0.
    private static func nameLength(_ words: [String], from start: Int, longest: Int = 3) -> Int {
        for length in stride(from: min(longest, words.count - start), through: 2, by: -1)
        where isPersonName(words[start..<(start + length)].joined(separator: " ")) {
            return length
        }
        return 0
    }

    /// `title` without what plainly is not part of it: an edition line and what follows ("… Programs
    /// Second Edition Abelson and Sussman"), a subtitle naming the kind of book ("… The Biography of …"), a
    /// person's name before or after it when at least two words remain ("GERALD DURRELL A ZOO IN MY LUGGAGE",
    /// "SIDDHARTHA BY HERMANN HESSE"), or after one word that stands alone ("Dracula Bram Stoker"); the name
    /// cut off, if any.
    static func trimmed(_ title: String) -> (title: String, name: String?) {
        var words = title.split(whereSeparator: \.isWhitespace).map { String($0) }
        // An edition line: "Second Edition", "2nd edition", "Revised Edition".
        if ReadingRule.editionLines.isOn, let at = words.indices.dropFirst().first(where: { i in
            TextGrouper.key(words[i]) == "edition" && editionWords.contains(TextGrouper.key(words[i - 1]))
        }) {
            words = Array(words[..<(at - 1)])
        }
        // A subtitle that says what kind of book it is: "SHARK THE BIOGRAPHY OF GREG NORMAN", "Sula A Novel".
        if ReadingRule.editionLines.isOn, let at = words.indices.dropFirst().first(where: { i in
            i + 1 < words.count && TextGrouper.articles.contains(TextGrouper.key(words[i])) && kindWords.contains(TextGrouper.key(words[i + 1]))
        }) {
            words = Array(words[..<at])
        }
        var name: String?
        guard ReadingRule.nameTrim.isOn else {
            return (TextGrouper.withoutStrayMarks(words.joined(separator: " "), keepingApostrophe: true), nil)
        }
        // "by" and a name at the end.
        if let by = words.lastIndex(where: { $0.lowercased() == "by" }), by >= 1, isPersonName(words[by...].joined(separator: " ")) {
            name = words[(by + 1)...].joined(separator: " ")
            words = Array(words[..<by])
        }
        // A leading name leaves two words at least ("SHANE GOULD TUMBLE TURNS": not "SHANE GOULD TUMBLE").
        let leading = nameLength(words, from: 0, longest: min(3, words.count - 2))
        let trailingStart = (max(0, words.count - 3)...max(0, words.count - 2)).first { start in
            start >= 0 && nameLength(words, from: start) == words.count - start
        }
        if leading > 0, words.count - leading >= 2, trailingStart == nil || trailingStart == 0 {
            name = name ?? words[..<leading].joined(separator: " ")
            words = Array(words[leading...])
        } else if let start = trailingStart, start >= 2 || (start == 1 && standsAlone(words[0])), leading == 0,
            !TextGrouper.connectives.contains(TextGrouper.key(words[start - 1]))
        {
            name = name ?? words[start...].joined(separator: " ")
            words = Array(words[..<start])
        }
        return (TextGrouper.withoutStrayMarks(words.joined(separator: " "), keepingApostrophe: true), name)
    }

    /// Whether `word` can be a title alone before an author's name ("Dracula Bram Stoker"): four letters or
    /// more, not a connective and not a given name ("Oliver Charles Dickens" is no title and a name).
    private static func standsAlone(_ word: String) -> Bool {
        word.filter(\.isLetter).count >= 4 && !TextGrouper.connectives.contains(TextGrouper.key(word))
            && !isGivenName(word)
    }

    /// Words after an article that start a subtitle saying what kind of book it is ("The Biography of …",
    /// "A Novel"), which the title ends before.
    static let kindWords: Set<String> = ["biography", "autobiography", "novel", "memoir", "memoirs"]

    /// Words before "Edition" that make an edition line.
    static let editionWords: Set<String> = [
        "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth", "2nd", "3rd", "4th", "5th", "6th",
        "7th", "8th", "9th", "10th", "revised", "new", "international", "updated", "expanded", "anniversary", "illustrated",
        "student", "global", "special",
    ]
}
