import ScanProtocol
import Testing

@testable import SpineReading

/// The photo's lines checking a title read crop by crop (`LineCheck`, through `LineTitles.filled`).
struct LineCheckTests {
    /// One standing spine over the whole photo, titled `title` by reading crop by crop, with `lines` on it.
    static func checked(_ title: String, lines: [PhotoLine]) throws -> SpineText {
        let lexicon = try TesseractLexicon(settings: .standard)
        let read = SpineText(title: title, author: nil, text: title, confidence: 0.9, orientation: .verticalTopToBottom)
        let filled = LineTitles(tuning: ReadingTuning()).filled([read], spines: [LineTitlesTests.standing(0, 1)], lines: lines, lexicon: lexicon)
        return try #require(filled.first)
    }

    static func line(_ text: String, y: Double = 0.5, thickness: Double = 20, confidence: Double = 0.99) -> PhotoLine {
        LineTitlesTests.line(text, at: 0.5, y: y, thickness: thickness, confidence: confidence)
    }

    @Test("a given name or surname alone, of a two-word name line on the spine, is the author's: the line title takes its place, or none")
    func namePiece() throws {
        var text = try Self.checked("WILLIAM", lines: [Self.line("WILLIAM GIBSON", y: 0.3), Self.line("NEUROMANCER", y: 0.7, thickness: 10)])
        #expect(text.title == nil && text.author == "WILLIAM GIBSON")
        text = try Self.checked("FYFFE", lines: [Self.line("ALLEN FYFFE", y: 0.3), Self.line("THE HIGH MOUNTAINS", y: 0.7, thickness: 40)])
        #expect(text.title == "THE HIGH MOUNTAINS" && text.author == "ALLEN FYFFE")
        // A name glued together, cut off a line before its title.
        let check = LineCheck(lines: [Self.line("DAVID SCHWARZ ON BATTING")], tuning: ReadingTuning())
        #expect(check.nameHolding("DAVIDSCHWARZ") == "DAVID SCHWARZ")
        // A title that is a whole name line, or a part of a longer line, stays.
        #expect(try Self.checked("Jane Eyre", lines: [Self.line("Jane Eyre")]).title == "Jane Eyre")
        #expect(try Self.checked("WAVERLEY", lines: [Self.line("WALTER SCOTT WAVERLEY")]).title == "WAVERLEY")
        #expect(try Self.checked("MIDDLEMARCH", lines: [Self.line("GEORGE ELIOT MIDDLEMARCH")]).title == "MIDDLEMARCH")
    }

    @Test("a title with a word the word list does not know is the surely read line of known words it misread")
    func misreading() throws {
        #expect(try Self.checked("FVEREST", lines: [Self.line("EVEREST")]).title == "EVEREST")
        #expect(try Self.checked("THE WEAITH OF NATIONS", lines: [Self.line("THE WEALTH OF NATIONS")]).title == "THE WEALTH OF NATIONS")
        // Words glued or split where the line spaces them as the word list knows them.
        #expect(try Self.checked("Out ofthe Crisis", lines: [Self.line("Out of the Crisis")]).title == "Out of the Crisis")
        #expect(try Self.checked("THE MOONS TONE", lines: [Self.line("THE MOONSTONE")]).title == "THE MOONSTONE")
        #expect(try Self.checked("THE MOONS TONE", lines: [Self.line("THE MOONSTONE", confidence: 0.8)]).title == "THE MOONS TONE")
        #expect(try Self.checked("THE TIME MACHINE", lines: [Self.line("THE TIMEMACHINE")]).title == "THE TIME MACHINE")
        #expect(try Self.checked("A Z00 IN MY LUGGAGE", lines: [Self.line("GERALD DURRELL A ZOO IN MY LUGGAGE")]).title == "A ZOO IN MY LUGGAGE")
        // Read unsurely, too far apart, or a title of known words: it stays.
        #expect(try Self.checked("FVEREST", lines: [Self.line("EVEREST", confidence: 0.85)]).title == "FVEREST")
        #expect(try Self.checked("THE WEAITH OF NATIONS", lines: [Self.line("NATIONS AT WAR")]).title == "THE WEAITH OF NATIONS")
        #expect(try Self.checked("THE TIME MACHINE", lines: [Self.line("THE TIME MARINE")]).title == "THE TIME MACHINE")
    }

    @Test("a title cut off inside a word of a surely read line is that line, without a name or an edition line")
    func cutTitle() throws {
        #expect(try Self.checked("LON MUSK", lines: [Self.line("ELON MUSK")]).title == "ELON MUSK")
        #expect(try Self.checked("eak district", lines: [Self.line("peak district : climbing")]).title == "peak district : climbing")
        #expect(try Self.checked("The Kamogawa Foo", lines: [Self.line("The Kamogawa Food Detectives")]).title == "The Kamogawa Food Detectives")
        #expect(try Self.checked("ZOO IN MY LUGG", lines: [Self.line("GERALD DURRELL A ZOO IN MY LUGGAGE")]).title == "A ZOO IN MY LUGGAGE")
        // Whole words of the line, a line read unsurely, words between that differ, or a line that is a name: it stays.
        #expect(try Self.checked("ON BATTING", lines: [Self.line("BOB WOOLMER ON BATTING")]).title == "ON BATTING")
        #expect(try Self.checked("LON MUSK", lines: [Self.line("ELON MUSK", confidence: 0.85)]).title == "LON MUSK")
        #expect(try Self.checked("he Lost World", lines: [Self.line("The Last World")]).title == "he Lost World")
        #expect(try Self.checked("ohn Wyndham", lines: [Self.line("John Wyndham")]).title == "ohn Wyndham")
        #expect(LineCheck.isCut(["ime", "mach"], from: ["the", "time", "machine"]))
        #expect(!LineCheck.isCut(["time", "machine"], from: ["the", "time", "machine"]))
        #expect(!LineCheck.isCut(["the", "time", "machine", "again"], from: ["the", "time", "machine"]))
    }

    @Test("one word that no line reads, where the lines read lettering, is no title; where they read nothing it stays")
    func unsupportedWord() throws {
        var text = try Self.checked("KLASS", lines: [Self.line("DS 361 A7 B2")])
        #expect(text.title == nil && text.text == "KLASS")
        text = try Self.checked("KLASS", lines: [Self.line("THE GREAT GAME REVISITED", thickness: 40), Self.line("DS 361 A7 B2", y: 0.9)])
        #expect(text.title == "THE GREAT GAME REVISITED")
        // Read by a line, even a little differently, or nothing read: it stays.
        #expect(try Self.checked("Ulysses", lines: [Self.line("ULYSES")]).title == "Ulysses")
        #expect(try Self.checked("Ulysses", lines: []).title == "Ulysses")
        #expect(try Self.checked("Ulysses", lines: [Self.line("b0"), Self.line("CICERONE", confidence: 0.5)]).title == "Ulysses")
        // Two words are not checked this way.
        #expect(try Self.checked("GREAT GAME", lines: [Self.line("CICERONE")]).title == "GREAT GAME")
        #expect(LineTitles.editDistance(Array("kashiwa"), Array("hisashikashiwai"), inside: true) == 0)
        #expect(LineTitles.editDistance(Array("klass"), Array("cicerone"), inside: true) >= 4)
    }
}
