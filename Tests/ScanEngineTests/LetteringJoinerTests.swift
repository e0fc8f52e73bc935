import ScanProtocol
import SpineReading
import Testing

@testable import ScanEngine

/// Pieces of one book that its lettering crosses are one book again; different books stay apart.
@Suite("Joining the pieces one line of lettering crosses")
struct LetteringJoinerTests {
    /// An upright spine from normalised x `x0` to `x1`, top to bottom of the photo's upper half, in `row`.
    static func spine(_ x0: Double, _ x1: Double, row: Int = 0, title: String? = nil) -> Spine {
        Spine(
            index: 0, row: row, box: NormalizedBox(x: x0, y: row == 0 ? 0 : 0.5, width: x1 - x0, height: 0.5), confidence: 1,
            color: RGBColor(r: 10, g: 20, b: 30), pose: .upright, title: title)
    }

    static func rows(_ count: Int) -> [ShelfRow] {
        (0..<count).map { ShelfRow(index: $0, box: NormalizedBox(x: 0, y: Double($0) * 0.5, width: 1, height: 0.5), spineCount: 0) }
    }

    @Test("a title's lettering over three pieces: one book with the title over their union; the rest indexed again")
    func piecesJoin() {
        let spines = [
            Self.spine(0.0, 0.1, title: "LEFT"), Self.spine(0.1, 0.13), Self.spine(0.13, 0.2, title: "NORTH WALES ROCK"),
            Self.spine(0.2, 0.22), Self.spine(0.22, 0.3, title: "RIGHT"),
        ]
        let span = LetteringSpan(x0: 0.11, x1: 0.22, y: 0.25)
        let (joined, rows) = LetteringJoiner().joined(spines, rows: Self.rows(1), lettering: [span])
        #expect(joined.map(\.title) == ["LEFT", "NORTH WALES ROCK", "RIGHT"])
        #expect(joined.map(\.index) == [0, 1, 2])
        let book = joined[1].box
        #expect(abs(book.x - 0.1) < 1e-9 && abs(book.x + book.width - 0.22) < 1e-9)
        #expect(joined[1].polygon == NormalizedQuad(box: book))  // the pieces' outlines are their boxes here
        #expect(rows.map(\.spineCount) == [3])
    }

    @Test("lettering over two books with titles of their own, or over two rows, joins nothing")
    func booksStayApart() {
        let titled = [Self.spine(0.0, 0.1, title: "ONE"), Self.spine(0.1, 0.2, title: "TWO")]
        let across = LetteringSpan(x0: 0.05, x1: 0.15, y: 0.25)
        #expect(LetteringJoiner().joined(titled, rows: Self.rows(1), lettering: [across]).spines.count == 2)
        let twoRows = [Self.spine(0.0, 0.1), Self.spine(0.05, 0.15, row: 1)]
        let atEdge = LetteringSpan(x0: 0.05, x1: 0.1, y: 0.5)
        #expect(LetteringJoiner().joined(twoRows, rows: Self.rows(2), lettering: [atEdge]).spines.count == 2)
    }

    @Test("lettering that only touches a neighbour, or lies above the pieces, joins nothing")
    func touchingIsNotCrossing() {
        let spines = [Self.spine(0.0, 0.1, title: "ONE"), Self.spine(0.1, 0.2)]
        let touching = LetteringSpan(x0: 0.0, x1: 0.105, y: 0.25)
        #expect(LetteringJoiner().joined(spines, rows: Self.rows(1), lettering: [touching]).spines.count == 2)
        let below = LetteringSpan(x0: 0.05, x1: 0.15, y: 0.75)
        #expect(LetteringJoiner().joined(spines, rows: Self.rows(1), lettering: [below]).spines.count == 2)
    }

    @Test("a slanted book's pieces join into an outline with the same slant: the left piece's left edge, the right piece's right edge")
    func slantKept() {
        func slanted(_ x0: Double, _ x1: Double, title: String? = nil) -> Spine {
            let quad = NormalizedQuad(
                topLeft: NormalizedPoint(x: x0 + 0.02, y: 0), topRight: NormalizedPoint(x: x1 + 0.02, y: 0),
                bottomRight: NormalizedPoint(x: x1, y: 0.5), bottomLeft: NormalizedPoint(x: x0, y: 0.5))
            return Spine(
                index: 0, row: 0, box: NormalizedBox(x: x0, y: 0, width: x1 - x0 + 0.02, height: 0.5), confidence: 1,
                color: RGBColor(r: 0, g: 0, b: 0), pose: .upright, polygon: quad, title: title)
        }
        let spines = [slanted(0.1, 0.13), slanted(0.13, 0.2, title: "SLANTED")]
        let (joined, _) = LetteringJoiner().joined(spines, rows: Self.rows(1), lettering: [LetteringSpan(x0: 0.115, x1: 0.16, y: 0.25)])
        #expect(joined.count == 1)
        #expect(joined.first?.polygon == NormalizedQuad(
            topLeft: spines[0].polygon.topLeft, topRight: spines[1].polygon.topRight, bottomRight: spines[1].polygon.bottomRight,
            bottomLeft: spines[0].polygon.bottomLeft))
        #expect(joined.first.map { abs($0.box.x - 0.1) < 1e-9 && abs($0.box.x + $0.box.width - 0.22) < 1e-9 } == true)
    }

    @Test("two spans chained through one piece that would gather two titles leave the pieces apart")
    func chainedTitlesStayApart() {
        let spines = [Self.spine(0.0, 0.1, title: "ONE"), Self.spine(0.1, 0.12), Self.spine(0.12, 0.2, title: "TWO")]
        let spans = [LetteringSpan(x0: 0.06, x1: 0.115, y: 0.25), LetteringSpan(x0: 0.105, x1: 0.16, y: 0.3)]
        #expect(LetteringJoiner().joined(spines, rows: Self.rows(1), lettering: spans).spines.map(\.title) == ["ONE", nil, "TWO"])
    }
}
