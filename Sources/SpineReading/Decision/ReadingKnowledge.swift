import Foundation

/// What the reading knows of words, read from maintained Debian data rather than written in code: the word lists
/// of wamerican and wbritish (English), wngerman, wspanish and wfrench under /usr/share/dict. Words are kept as
/// 64-bit hashes of their keys (`key`), about 16 bytes a word. Tools/reading-lab/knowledge.py reads the same
/// files the same way.
package struct ReadingKnowledge: Sendable {
    /// A word list: the hashes of its words' keys.
    package struct WordSet: Sendable {
        var hashes: Set<UInt64>
        /// Whether the list holds `word` (asked by its key).
        package func contains(_ word: String) -> Bool { containsKey(ReadingKnowledge.key(word)) }
        /// Whether the list holds a word whose key (`ReadingKnowledge.key`) is `key`.
        package func containsKey(_ key: String) -> Bool { hashes.contains(ReadingKnowledge.hash(key)) }
        package var isEmpty: Bool { hashes.isEmpty }
        package var count: Int { hashes.count }
    }

    /// Where the lists are: the files of each language under `dictionaries`.
    package struct Sources: Sendable {
        package var dictionaries: String
        package var languages: [(code: String, files: [String])]

        /// The Debian packages' places (scripts/bootstrap installs them; the Debian package depends on them).
        package static let debian = Sources(
            dictionaries: "/usr/share/dict",
            languages: [("en", ["american-english", "british-english"]), ("de", ["ngerman"]), ("es", ["spanish"]), ("fr", ["french"])])
    }

    /// English words.
    package var english: WordSet
    /// The other languages' words (German, Spanish, French), one list each.
    package var others: [WordSet]

    /// The lists read from `sources`; a list whose file is missing is empty (`missing` names it).
    package init(sources: Sources = .debian) {
        var english = WordSet(hashes: []), others: [WordSet] = [], missing: [String] = []
        for (code, files) in sources.languages {
            var set = Set<UInt64>()
            for file in files {
                let path = (sources.dictionaries as NSString).appendingPathComponent(file)
                guard let data = FileManager.default.contents(atPath: path) else {
                    missing.append(path)
                    continue
                }
                Self.insertKeys(ofLinesIn: [UInt8](data), into: &set)
            }
            if code == "en" { english = WordSet(hashes: set) } else { others.append(WordSet(hashes: set)) }
        }
        self.english = english
        self.others = others
        self.missing = missing
    }

    /// Files that could not be read (their lists are empty).
    package let missing: [String]

    /// The lists of the installed Debian packages, read once per process.
    package static let installed = ReadingKnowledge()

    /// A word as the lists are asked: lower case, a trailing possessive "'s" dropped, its letters only (Unicode
    /// letter categories, as Python's `str.isalpha`).
    package static func key(_ word: String) -> String {
        var w = word.lowercased()
        for suffix in ["'s", "\u{2019}s"] where w.hasSuffix(suffix) && w.count > suffix.count {
            w.removeLast(suffix.count)
        }
        var out = String.UnicodeScalarView()
        for scalar in w.unicodeScalars where isLetter(scalar) { out.append(scalar) }
        return String(out)
    }

    /// Whether `scalar` is a letter (general category L*).
    package static func isLetter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: true
        default: false
        }
    }

    /// The hash of each line's key (`key`, `hash`) inserted into `set`: an ASCII line is keyed on its bytes (a
    /// million lines in well under a second; through `String` it took seconds), any other through `key`.
    package static func insertKeys(ofLinesIn bytes: [UInt8], into set: inout Set<UInt64>) {
        set.reserveCapacity(set.count + bytes.count / 8)
        var start = 0
        while start < bytes.count {
            var end = start
            var ascii = true
            while end < bytes.count, bytes[end] != 0x0A {
                if bytes[end] >= 0x80 { ascii = false }
                end += 1
            }
            var last = end
            if last > start, bytes[last - 1] == 0x0D { last -= 1 }
            if ascii {
                // A trailing possessive "'s" goes, as in `key`.
                if last - start > 2, bytes[last - 2] == 0x27, bytes[last - 1] | 0x20 == 0x73 { last -= 2 }
                var h: UInt64 = 0xcbf2_9ce4_8422_2325
                var letters = 0
                for i in start..<last {
                    let lower = bytes[i] | 0x20
                    guard lower >= 0x61, lower <= 0x7A else { continue }
                    h ^= UInt64(lower)
                    h = h &* 0x0000_0100_0000_01b3
                    letters += 1
                }
                if letters > 0 { set.insert(h) }
            } else {
                let k = key(String(decoding: bytes[start..<last], as: UTF8.self))
                if !k.isEmpty { set.insert(hash(k)) }
            }
            start = end + 1
        }
    }

    /// FNV-1a over the key's UTF-8 bytes.
    package static func hash(_ key: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            h ^= UInt64(byte)
            h = h &* 0x0000_0100_0000_01b3
        }
        return h
    }
}
