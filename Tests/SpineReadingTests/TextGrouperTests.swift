import Testing

@testable import SpineReading

/// The rules that turn Tesseract's words into title and author groups, on words built by hand (the
/// cases are the ones the evaluation set showed going wrong).
@Suite("Grouping the words of a spine")
struct TextGrouperTests {
    /// A word on `line` from `left` to `right`, its letters `cap` pixels tall.
    static func word(_ text: String, _ left: Int, _ right: Int, cap: Double, confidence: Double = 95, line: Int = 0) -> RecognisedWord {
        RecognisedWord(
            text: text, confidence: confidence, left: left, top: 40, right: right, bottom: 40 + Int(cap), line: line, capHeight: cap)
    }

    @Test("the cap height comes from what each letter is: x-height letters count 1.38 times, marks and i/j not at all")
    func capHeight() throws {
        // "Scaramouche": S and h show 34 px, the x-height letters 24.6 px (× 1.38 ≈ 34).
        let letters: [(Character, Double)] = Array("Scaramouche").map { c in
            (c, c == "S" || c == "h" ? 34.0 : 24.6)
        }
        let estimate = try #require(RecognisedWord.capHeight(of: letters))
        #expect(abs(estimate - 34) < 1.5)
        #expect(RecognisedWord.capHeight(of: [("|", 90), ("i", 30), ("-", 3)]) == nil)
        #expect(RecognisedWord.capHeight(of: [("T", 20), ("H", 22), ("E", 21)]) == 21)
    }

    @Test("a word read twice over one place is a repeat; the same text elsewhere, or other text there, is not")
    func repeatedWord() {
        let iron = Self.word("Iron", 100, 180, cap: 30)
        #expect(Self.word("Iron", 104, 184, cap: 30).isRepeat(of: iron))
        #expect(!Self.word("Iron", 150, 230, cap: 30).isRepeat(of: iron))  // a quarter of the box: a second "Iron"
        #expect(!Self.word("Iron", 300, 380, cap: 30).isRepeat(of: iron))
        #expect(!Self.word("Irons", 100, 180, cap: 30).isRepeat(of: iron))
    }

    @Test("a wide gap on one line parts title and author even when their sizes are close")
    func gapSplits() throws {
        let words = [
            Self.word("TO", 56, 132, cap: 42), Self.word("THE", 150, 269, cap: 43), Self.word("LIGHTHOUSE", 285, 675, cap: 42),
            Self.word("VIRGINIA", 743, 916, cap: 33), Self.word("WOOLF", 932, 1072, cap: 33),
        ]
        let groups = TextGrouper.groups(words)
        #expect(groups.map(\.text) == ["TO THE LIGHTHOUSE", "VIRGINIA WOOLF"])
    }

    @Test("near-equal groups: the one read first is the title; a clearly larger one wins wherever it is")
    func readingOrderBreaksTies() {
        let tie = TextGrouper.groups([Self.word("Scaramouche", 43, 305, cap: 24), Self.word("Sabatini", 499, 616, cap: 27)])
        #expect(tie.first?.text == "Scaramouche")
        let larger = TextGrouper.groups([Self.word("Melville", 43, 200, cap: 18), Self.word("Typee", 400, 520, cap: 30)])
        #expect(larger.first?.text == "Typee")
    }

    @Test("a word read right but scored near 0 joins its line's group, adds nothing to the confidence; noise does not")
    func rescue() throws {
        let words = [
            Self.word("DAISY", 68, 165, cap: 24, confidence: 95), Self.word("MILLER", 177, 293, cap: 24, confidence: 2),
            Self.word("#sarsames", 305, 417, cap: 24, confidence: 0),
        ]
        let title = try #require(TextGrouper.groups(words).first)
        #expect(title.text == "DAISY MILLER")
        #expect(title.confidence == 95)
        // Other case style, other size, or too far: not joined.
        for stranger in [
            Self.word("Miller", 177, 293, cap: 24, confidence: 2), Self.word("MILLER", 177, 293, cap: 40, confidence: 2),
            Self.word("MILLER", 260, 380, cap: 24, confidence: 2),
        ] {
            #expect(TextGrouper.groups([words[0], stranger]).first?.text == "DAISY")
        }
    }

    @Test("a word scored near 0 at the end of a title's first line joins it; two groups that rescued one word are one")
    func rescueOnItsLine() throws {
        // THE WAR OF over THE WORLDS (shelf_027): OF, at 44, ends the first line, not the group.
        func below(_ w: RecognisedWord) -> RecognisedWord {
            var w = w
            (w.top, w.bottom) = (w.top + 30, w.bottom + 30)
            return w
        }
        let stacked = [
            Self.word("THE", 131, 173, cap: 20), Self.word("WAR", 182, 230, cap: 18, confidence: 81),
            Self.word("OF", 238, 268, cap: 18, confidence: 44), below(Self.word("THE", 131, 173, cap: 20, line: 1)),
            below(Self.word("WORLDS", 182, 277, cap: 20, line: 1)),
        ]
        let title = try #require(TextGrouper.groups(stacked).first)
        #expect(title.text == "THE WAR OF THE WORLDS")
        #expect(title.rescued.map(\.text) == ["OF"])
        // Lady [Audley's] Secret (shelf_027): each side rescued the low-scored middle word.
        let shared = [
            Self.word("Lady", 64, 198, cap: 40, confidence: 93), Self.word("Audley's", 208, 442, cap: 40, confidence: 41),
            Self.word("Secret", 459, 635, cap: 41, confidence: 96),
        ]
        let groups = TextGrouper.groups(shared)
        #expect(groups.map(\.text) == ["Lady Audley's Secret"])
        #expect(groups.first?.confidence ?? 0 > 93)
    }

    @Test("a rescued word leaves the stray marks of the texture beside it ('/SENTIMENTAL' joins as 'SENTIMENTAL')")
    func rescueWithoutStrayMarks() throws {
        let words = [Self.word("/SENTIMENTAL", 91, 322, cap: 23, confidence: 2), Self.word("EDUCATION", 332, 515, cap: 23)]
        let title = try #require(TextGrouper.groups(words).first)
        #expect(title.text == "SENTIMENTAL EDUCATION")
        #expect(title.confidence == 95)
        // Marks inside a word are not stray: it is not plainly a word, and stays out.
        // A closing apostrophe is the word's own: "WIVES'" joins as it was read.
        let possessive = [Self.word("WIVES'|", 91, 322, cap: 23, confidence: 2), Self.word("TALE", 332, 515, cap: 23)]
        #expect(TextGrouper.groups(possessive).first?.text == "WIVES' TALE")
        let inside = [Self.word("SENTI/MENTAL", 91, 322, cap: 23, confidence: 2), words[1]]
        #expect(TextGrouper.groups(inside).first?.text == "EDUCATION")
    }

    @Test("an article scored near 0 a wide word space before the title joins it; another word as far off does not")
    func rescuedArticle() {
        // Gaps of 22 px at 24 px capitals: beyond a word space (0.8 × 24), within an article's reach (1.2 × 24).
        let title = [Self.word("WAY", 378, 441, cap: 24), Self.word("WE", 463, 505, cap: 24), Self.word("NOW", 531, 600, cap: 24)]
        #expect(TextGrouper.groups([Self.word("THE", 293, 356, cap: 24, confidence: 33)] + title).first?.text == "THE WAY WE NOW")
        #expect(TextGrouper.groups([Self.word("HOW", 293, 356, cap: 24, confidence: 33)] + title).first?.text == "WAY WE NOW")
    }

    @Test("a title split by a wide word space is joined when English says it goes on; an author after a whole title is not")
    func grammarCompletesTitle() {
        // Ends with a connective: "The Diary of a" + "Nobody".
        let diary = TextGrouper.groups([
            Self.word("The", 10, 60, cap: 20), Self.word("Diary", 70, 150, cap: 20), Self.word("of", 160, 190, cap: 20),
            Self.word("a", 200, 215, cap: 20), Self.word("Nobody", 260, 380, cap: 20),
        ])
        #expect(diary.first?.text == "The Diary of a Nobody")
        // The neighbour after it starts with a lower-case connective: "The Portrait" + "of a Lady".
        let portrait = TextGrouper.groups([
            Self.word("The", 10, 70, cap: 30), Self.word("Portrait", 85, 250, cap: 30),
            Self.word("of", 300, 340, cap: 30), Self.word("a", 352, 370, cap: 30), Self.word("Lady", 382, 470, cap: 30),
        ])
        #expect(portrait.first?.text == "The Portrait of a Lady")
        // A lone article before it: "THE" + "PRAIRIE", on lines of their own.
        let prairie = TextGrouper.groups([Self.word("THE", 10, 80, cap: 30, line: 0), Self.word("PRAIRIE", 200, 400, cap: 32, line: 1)])
        #expect(prairie.first?.text == "THE PRAIRIE")
        // A whole title and its author stay apart; so do a title ending in a connective and much smaller print.
        let withAuthor = TextGrouper.groups([
            Self.word("THE", 10, 80, cap: 30), Self.word("PRAIRIE", 95, 300, cap: 30), Self.word("COOPER", 400, 520, cap: 28),
        ])
        #expect(withAuthor.map(\.text) == ["THE PRAIRIE", "COOPER"])
        let smaller = TextGrouper.groups([
            Self.word("TALES", 10, 120, cap: 30), Self.word("OF", 135, 180, cap: 30), Self.word("Pennant", 300, 380, cap: 12),
        ])
        #expect(smaller.map(\.text) == ["TALES OF", "Pennant"])
    }

    @Test("plainly part of a title: it ends with a connective, or starts with one no title starts with")
    func incompleteTitles() {
        for part in ["Reflections on the", "THE DUCHESS OF", "The Wind in the", "of Paradise", "AND PUNISHMENT", "and Sons", "Sense &"] {
            #expect(TextGrouper.isIncompleteTitle(part), "\(part)")
        }
        for whole in ["Of Human Bondage", "On Liberty", "To the Lighthouse", "The Secret Agent", "Dombey & Son", "A Room with a View", "IN COLD BLOOD"] {
            #expect(!TextGrouper.isIncompleteTitle(whole), "\(whole)")
        }
    }

    @Test("two readings are the same title when their letters and digits are, case and marks aside")
    func sameTitle() {
        #expect(SpineReader.sameTitle("THE TIME MACHINE", "The Time Machine"))
        #expect(SpineReader.sameTitle("Jo's Boys", "JOS BOYS"))
        #expect(!SpineReader.sameTitle("The Time Machine", "The Tine Machine"))
        #expect(!SpineReader.sameTitle("Emma", "Emma 2"))
    }

    @Test("a title holds a part read before when it has the part's words in a row, case and marks aside")
    func holdsPart() {
        #expect(SpineReader.contains("THE WINGS OF THE DOVE", part: "OF THE DOVE"))
        #expect(SpineReader.contains("The Theory of the Leisure Class", part: "THE THEORY OF"))
        #expect(!SpineReader.contains("Federalist Papers", part: "The"))
        #expect(!SpineReader.contains("THE WINGS OF THE DOVE", part: "OF DOVE"))
        #expect(!SpineReader.contains("Dove", part: "OF THE DOVE"))
        #expect(!SpineReader.contains("Dove", part: "|"))
    }

    @Test("an article run into the next word is given back as two words; other runs of capitals stay as read")
    func ungluedArticle() {
        #expect(SpineReader.clean("The Diary of aNobody") == "The Diary of a Nobody")
        #expect(SpineReader.clean("AShropshire Lad") == "A Shropshire Lad")
        for kept in ["McTeague", "ABBEY", "Aeneid", "A Room", "aT"] {
            #expect(SpineReader.clean(kept) == kept, "\(kept)")
        }
    }

    @Test("a hyphenated word split after its hyphen is closed again; a dash between words stays")
    func hyphenatedWord() {
        #expect(SpineReader.clean("Moby- Dick") == "Moby-Dick")
        #expect(SpineReader.clean("Daddy-Long- Legs") == "Daddy-Long-Legs")
        for kept in ["Kim - Kipling", "Moby-Dick", "1984- 2"] {
            #expect(SpineReader.clean(kept) == kept, "\(kept)")
        }
    }

    @Test("with whole lines (PP-OCR's), two lines side by side stay two groups; stacked lines may still join")
    func wholeLines() {
        // "GERALD DURRELL" and "A ZOO IN MY LUGGAGE": two detected lines a word space apart on one row.
        let row = [
            Self.word("GERALD", 10, 150, cap: 30, line: 0), Self.word("DURRELL", 170, 330, cap: 30, line: 0),
            Self.word("A", 350, 370, cap: 30, line: 1), Self.word("ZOO", 390, 470, cap: 30, line: 1),
        ]
        #expect(TextGrouper.groups(row).count == 1)
        #expect(TextGrouper.groups(row, wholeLines: true).count == 2)
        // Two stacked lines of one title (the second line below the first).
        var second = Self.word("SCIENCE", 10, 200, cap: 30, line: 1)
        second.top = 80
        second.bottom = 110
        #expect(TextGrouper.groups([Self.word("COMPUTER", 10, 220, cap: 30, line: 0), second], wholeLines: true).count == 1)
    }
}
