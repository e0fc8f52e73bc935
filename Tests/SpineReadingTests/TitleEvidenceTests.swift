import ScanProtocol
import Testing

@testable import SpineReading

/// What a spine's text says about its title: names are authors', an edition line ends a title, and a
/// word list tells PP-OCR's confident misreadings from words.
@Suite("Title evidence: names, edition lines, words")
struct TitleEvidenceTests {
    @Test("a person's name is two to four capitalised words: initials, or a given name and a surname or no ordinary word")
    func personNames() {
        for name in ["WILLIAM GIBSON", "Michel Biron", "by Herman Melville", "John Grisham", "Tom Brown", "J. R. R. TOLKIEN", "Jonathan Brown", "P. G. Wodehouse"] {
            #expect(TitleEvidence.isPersonName(name), "\(name)")
        }
        // Titles, articles read as initials, surnames alone and names inside titles are not.
        for text in [
            "A Room with a View", "A MODEST PROPOSAL", "DICKENS", "The Education of Henry Adams", "LIFE AND FOOTBALL", "Thermosets and Composites",
            "neuromancer", "Grace Notes", "Rose Garden", "WILLIAM GIBSON NEUROMANCER SPRAWL TRILOGY",
            // A possessive opens a title: no author is printed so.
            "Tom Brown's", "CHRIS BONINGTON’S", "RICKY PONTING'S",
        ] {
            #expect(!TitleEvidence.isPersonName(text), "\(text)")
        }
    }

    @Test("the names come from the Census lists of the installed Debian package, the ordinary words from wamerican")
    func namesFromPackages() {
        let names = PersonNames.installed
        #expect(names.missing.isEmpty, "missing: \(names.missing)")
        #expect(names.counts.given > 4_000 && names.counts.surnames > 900)
        #expect(names.isGivenName("JOHN") && names.isGivenName("Grace") && !names.isGivenName("Neuromancer"))
        #expect(names.isOnlyAGivenName("Agatha") && !names.isOnlyAGivenName("Grace") && !names.isOnlyAGivenName("will"))
        #expect(names.isSurname("Gibson") && names.isSurname("JOHNSON") && !names.isSurname("Notes"))
        #expect(names.isOrdinaryWord("notes") && !names.isOrdinaryWord("Grisham"))
        let module = "x\n$COMMON_SURNAMES = <<ENDNAMES;\nSMITH 1.006 1.006 1 JOHNSON 0.810 1.816 2\nENDNAMES\nBROWN 1 1 1\n"
        #expect(PersonNames.censusNames(in: module, lists: ["COMMON_SURNAMES"]) == ["SMITH", "JOHNSON"])
    }

    @Test("an edition line and a name beside the title are cut off; names inside a title stay")
    func trimming() {
        func trimmed(_ s: String) -> String { TitleEvidence.trimmed(s).title }
        #expect(trimmed("Structure and Interpretation of Computer Programs Second Edition Abelson and Sussman")
            == "Structure and Interpretation of Computer Programs")
        #expect(trimmed("Programming Pearls, Second Edition") == "Programming Pearls")
        #expect(TitleEvidence.trimmed("GERALD DURRELL A ZOO IN MY LUGGAGE") == ("A ZOO IN MY LUGGAGE", "GERALD DURRELL"))
        #expect(TitleEvidence.trimmed("MOBY DICK BY HERMAN MELVILLE") == ("MOBY DICK", "HERMAN MELVILLE"))
        #expect(trimmed("The Murder of Roger Ackroyd") == "The Murder of Roger Ackroyd")
        #expect(trimmed("THE AUTOBIOGRAPHY OF BENJAMIN FRANKLIN") == "THE AUTOBIOGRAPHY OF BENJAMIN FRANKLIN")
        #expect(trimmed("DAVID COPPERFIELD") == "DAVID COPPERFIELD")
        #expect(trimmed("A Tale of Two Cities") == "A Tale of Two Cities")
        // A possessive name is part of the title; a name after it is not.
        #expect(trimmed("Tom Brown's School Days") == "Tom Brown's School Days")
        #expect(trimmed("CHRIS BONINGTON'S EVEREST") == "CHRIS BONINGTON'S EVEREST")
        #expect(TitleEvidence.trimmed("THE COMPLETE GUIDE TO AUSTRALIAN FOOTBALL Ken Piesse")
            == ("THE COMPLETE GUIDE TO AUSTRALIAN FOOTBALL", "Ken Piesse"))
        #expect(TitleEvidence.trimmed("SHANE GOULD TUMBLE TURNS") == ("TUMBLE TURNS", "SHANE GOULD"))
        // One word that stands alone keeps its title place before a name; a given name or a connective does not.
        #expect(TitleEvidence.trimmed("Frankenstein Mary Shelley") == ("Frankenstein", "Mary Shelley"))
        #expect(trimmed("Oliver Charles Dickens") == "Oliver Charles Dickens")
        #expect(trimmed("Portrait of Dorian Gray") == "Portrait of Dorian Gray")
        // A subtitle naming the kind of book ends the title; a title that starts with one stays whole.
        #expect(trimmed("SHARK THE BIOGRAPHY OF GREG NORMAN") == "SHARK")
        #expect(trimmed("Sula A Novel") == "Sula")
        #expect(trimmed("My Early Life A Memoir") == "My Early Life")
        #expect(trimmed("The Biography of a Grizzly") == "The Biography of a Grizzly")
    }

    /// A group of one word per entry, each `cap` pixels tall, on lines of their own.
    static func group(_ text: String, cap: Double, line: Int) -> TextGrouper.Group {
        let words = text.split(separator: " ").enumerated().map { i, w in
            TextGrouperTests.word(String(w), 100 * i, 100 * i + 80, cap: cap, line: line)
        }
        return TextGrouper.Group(words: words)
    }

    @Test("a call number or an edition line alone is no title; titles with digits or imprint-like words are")
    func notTitles() {
        for text in ["DS 361", "A7 201", "QA 76.9", "FIFTH EDITION", "Second Edition Revised and Expanded", "with Mark Nicholas", "by Keegan", ""] {
            #expect(TitleEvidence.isNotATitle(text), "\(text)")
        }
        for text in ["1500", "1000 ULTIMATE TRAVEL EXPERIENCES", "Penguin Island", "The Press Gang", "Catch-22", "Tom Jones", "The Viking Age", "Programming Pearls Second Edition", "With Love from Paris", "by the Sea"] {
            #expect(!TitleEvidence.isNotATitle(text), "\(text)")
        }
        // A whole-title edition line is trimmed away to nothing.
        #expect(TitleEvidence.trimmed("FIFTH EDITION").title.isEmpty)
    }

    @Test("two people joined by and or & are names, not a title; two ordinary words joined are a title")
    func twoPeople() throws {
        let lexicon = try TesseractLexicon(settings: .standard)
        for text in ["Adrian Berry and John Arran", "Abelson and Sussman", "Levitt & Winkler", "by Mary Smith and Peter Jones"] {
            #expect(TitleEvidence.isNames(text, isWord: lexicon.knowsInLowerCase), "\(text)")
        }
        for text in ["Pride and Prejudice", "War and Peace", "Crime and Punishment", "Peter and the Wolf", "Abelson", "and Sussman", "Structure and Interpretation of Computer Programs"] {
            #expect(!TitleEvidence.isNames(text, isWord: lexicon.knowsInLowerCase), "\(text)")
        }
        #expect(lexicon.knowsInLowerCase("PREJUDICE") && !lexicon.knowsInLowerCase("Sussman") && !lexicon.knowsInLowerCase(""))
    }

    @Test("the word list knows words, possessives and hyphenated words, not misreadings")
    func lexicon() throws {
        let lexicon = try TesseractLexicon(settings: .standard)
        for word in ["luggage", "LUGGAGE", "Football", "CLIMBER'S", "well-known"] { #expect(lexicon.knows(word), "\(word)") }
        for word in ["BUUKS", "CHASIING", "THE5OBOOKZ", "GERAMIG", ""] { #expect(!lexicon.knows(word), "\(word)") }
        #expect(lexicon.knownShare(of: "A ZOO IN MY LUGGAGE") == 1)
        #expect(lexicon.knownShare(of: "GERAMIG PROGESSING ANDS") < 0.5)
        #expect(lexicon.knownShare(of: "1000 ULTIMATE TRAVEL EXPERIENCES") == 1)
        #expect(lexicon.knownShare(of: "—") == 0)
    }
}
