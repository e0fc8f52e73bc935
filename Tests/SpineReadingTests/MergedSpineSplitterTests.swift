import ScanProtocol
import Testing

@testable import SpineReading

/// A box as wide as several books, with surely read lines side by side on it, is parted between them.
@Suite("Parting a box that holds several books")
struct MergedSpineSplitterTests {
    /// Three books 0.1 wide and a box from 0.3 to 0.3 + `width` in one row of a 1000 × 1000 photo.
    static func shelf(width: Double) -> [SpineOutline] {
        [
            LineTitlesTests.standing(0, 0.1), LineTitlesTests.standing(0.1, 0.2), LineTitlesTests.standing(0.2, 0.3),
            LineTitlesTests.standing(0.3, 0.3 + width),
        ]
    }

    static func cuts(width: Double, lines: [PhotoLine]) -> [[Double]] {
        MergedSpineSplitter().cuts(Self.shelf(width: width), rows: [0, 0, 0, 0], lines: lines, photoWidth: 1000, photoHeight: 1000)
    }

    @Test("two columns of sure lines on a box three books wide: one cut halfway between them; the books stay whole")
    func twoColumns() throws {
        let lines = [
            LineTitlesTests.line("THE GREAT GAME", at: 0.35, confidence: 0.99), LineTitlesTests.line("HOPKIRK", at: 0.35, y: 0.8, confidence: 0.99),
            LineTitlesTests.line("WEB OPERATIONS", at: 0.45, confidence: 0.95),
        ]
        let cuts = Self.cuts(width: 0.3, lines: lines)
        #expect(cuts[0].isEmpty && cuts[1].isEmpty && cuts[2].isEmpty)
        let cut = try #require(cuts[3].first)
        #expect(cuts[3].count == 1)
        #expect(abs(cut - 1.0 / 3) < 1e-9)
    }

    @Test("a box under twice the row's width, lines read unsurely or too short, or one column: no cut")
    func staysWhole() {
        let apart = [LineTitlesTests.line("THE GREAT GAME", at: 0.35), LineTitlesTests.line("WEB OPERATIONS", at: 0.45)]
        // Title and author side by side on one wide book.
        #expect(Self.cuts(width: 0.19, lines: apart)[3].isEmpty)
        #expect(Self.cuts(width: 0.3, lines: apart.map { var l = $0; l.confidence = 0.8; return l })[3].isEmpty)
        #expect(Self.cuts(width: 0.3, lines: [LineTitlesTests.line("THE GREAT GAME", at: 0.35), LineTitlesTests.line("SHIP", at: 0.45)])[3].isEmpty)
        // Lines nearer than half their thicknesses are one column.
        let close = [LineTitlesTests.line("THE GREAT GAME", at: 0.35, thickness: 120), LineTitlesTests.line("WEB OPERATIONS", at: 0.45, thickness: 120)]
        #expect(Self.cuts(width: 0.3, lines: close)[3].isEmpty)
    }

    @Test("a leaning box is cut along its slant; the piece whose line holds the title read keeps it")
    func piecesAndTexts() throws {
        let outline = SpineOutline(
            box: NormalizedBox(x: 0.3, y: 0.1, width: 0.4, height: 0.8), pose: .upright,
            polygon: [.init(x: 0.3, y: 0.1), .init(x: 0.6, y: 0.1), .init(x: 0.7, y: 0.9), .init(x: 0.4, y: 0.9)])
        let pieces = MergedSpineSplitter.pieces(of: outline, cuts: [0.5])
        try #require(pieces.count == 2)
        let right = try #require(pieces[1].polygon)
        #expect(abs(right[0].x - 0.45) < 1e-9 && abs(right[3].x - 0.55) < 1e-9 && right[1] == outline.polygon?[1])
        #expect(abs(pieces[0].box.x - 0.3) < 1e-9 && abs(pieces[0].box.width - 0.25) < 1e-9)
        let read = SpineText(title: "WEB OPERATONS", author: nil, text: "WEB OPERATONS", confidence: 0.9, orientation: .verticalTopToBottom)
        let lines = [LineTitlesTests.line("THE GREAT GAME", at: 0.42), LineTitlesTests.line("WEB OPERATIONS", at: 0.58)]
        let texts = MergedSpineSplitter.texts(of: pieces, reading: read, lines: lines)
        #expect(texts.map(\.title) == [nil, "WEB OPERATONS"])
        // No line holds it: no piece keeps it.
        let elsewhere = MergedSpineSplitter.texts(of: pieces, reading: read, lines: [lines[0]])
        #expect(elsewhere.allSatisfy { $0.title == nil })
    }
}
