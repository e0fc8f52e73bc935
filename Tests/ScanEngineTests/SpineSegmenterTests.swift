import Testing

@testable import ScanEngine

/// The segmenter on row strips painted by hand.
@Suite("Segmenting a row strip")
struct SpineSegmenterTests {
    /// A strip of dark shelf back with books standing on its bottom line: each book is (left column,
    /// width, top line, colour).
    static func strip(width: Int, height: Int, books: [(Int, Int, Int, (Float, Float, Float))]) -> RowStrip {
        var data = [Float](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            data[i * 3] = 35
            data[i * 3 + 1] = 25
            data[i * 3 + 2] = 20
        }
        for (left, w, top, colour) in books {
            for y in top..<height {
                for x in left..<min(width, left + w) {
                    let i = (y * width + x) * 3
                    data[i] = colour.0
                    data[i + 1] = colour.1
                    data[i + 2] = colour.2
                }
            }
        }
        return RowStrip(width: width, height: height, data: data)
    }

    @Test("the tops of a few books in line are not the shelf board: taller books keep their tops")
    func booksInLineAreNotTheBoard() {
        // Two white books (100 of 600 columns) share their top at line 50, the strongest horizontal edge
        // near the top of the strip; the books beside them rise to lines 10…40, one each.
        let white: (Float, Float, Float) = (245, 245, 240)
        let colours: [(Float, Float, Float)] = [
            (200, 40, 40), white, (40, 160, 60), (230, 200, 110), (60, 70, 200), white, (150, 60, 170), (240, 140, 30),
            (90, 190, 200), (120, 120, 40), (200, 90, 120), (70, 130, 90),
        ]
        let tops = [10, 50, 15, 20, 25, 50, 30, 35, 40, 70, 80, 75]
        let books = tops.indices.map { k in (k * 50, 50, tops[k], colours[k]) }
        let segmenter = SpineSegmenter()
        let analysis = segmenter.analyse(Self.strip(width: 600, height: 200, books: books))
        #expect(analysis.boardLine < 10)
        let found = (0..<(analysis.cuts.count - 1)).compactMap { segmenter.segment(analysis, index: $0) }
        for (k, top) in tops.enumerated() {
            let centre = k * 50 + 25
            let book = found.first { $0.u0 <= centre && centre < $0.u1 }
            #expect(book != nil, "book \(k) was not found")
            if let book { #expect(abs(book.top - top) <= 4, "book \(k): top \(book.top), drawn at \(top)") }
        }
    }

    @Test("books standing under a book lying across their tops are still parted where they stand")
    func booksUnderALyingBookArePartedBelowIt() {
        // Twelve books (50 columns each) stand on the bottom line: the outer two from line 40, the ten between
        // them from line 225, under a book lying across columns 50..<550 on lines 180..<225. Each of their
        // columns' span starts at line 180, and its upper fifth has no boundary.
        let colours: [(Float, Float, Float)] = [
            (200, 40, 40), (240, 230, 200), (40, 160, 60), (230, 200, 110), (60, 70, 200), (250, 250, 245), (150, 60, 170),
            (240, 140, 30), (90, 190, 200), (120, 120, 40), (200, 90, 120), (70, 130, 90),
        ]
        let tops = [40] + Array(repeating: 225, count: 10) + [40]
        let standing = (0..<12).map { k in (k * 50, 50, tops[k], colours[k]) }
        var strip = Self.strip(width: 600, height: 400, books: standing)
        for y in 180..<225 {
            for x in 50..<550 {
                for (c, value) in [180, 60, 90].enumerated() { strip.data[(y * 600 + x) * 3 + c] = Float(value) }
            }
        }
        func parted(_ segmenter: SpineSegmenter) -> Int {
            let analysis = segmenter.analyse(strip)
            let found = (0..<(analysis.cuts.count - 1)).compactMap { segmenter.segment(analysis, index: $0) }
            return (1..<11).filter { k in
                let left = k * 50 - 4, right = k * 50 + 54
                return found.contains { segment in segment.u0 >= left && segment.u1 <= right && segment.u1 - segment.u0 >= 40 }
            }.count
        }
        // The ten books under the lying one, each a segment of its own.
        #expect(parted(SpineSegmenter()) == 10)
        // Over the whole span alone, the lying book's third leaves their boundaries too weak to cut.
        var wholeSpanOnly = SpineSegmenter()
        wholeSpanOnly.lowerEvidenceShare = 0
        #expect(parted(wholeSpanOnly) < 5)
    }

    @Test("a dark spine with light bands just below its top keeps its top against a wall of middling grey")
    func bandedTopIsFound() {
        // A wall (95, 93, 81) over the whole strip, books standing on the bottom line; the purple book in columns
        // 200..<250 (top at line 60) has light bands 4–8 and 13–16 lines below its top, so the dozen lines under
        // its top are, on average, nearly the wall's colour.
        let wall: (Float, Float, Float) = (95, 93, 81), purple: (Float, Float, Float) = (60, 38, 76)
        let colours: [(Float, Float, Float)] = [(200, 60, 50), (40, 150, 70), (230, 200, 110), (60, 70, 200), purple, (240, 140, 30)]
        let tops = [30, 45, 35, 50, 60, 40]
        var strip = Self.strip(width: 300, height: 200, books: [(0, 300, 0, wall)] + tops.indices.map { k in (k * 50, 50, tops[k], colours[k]) })
        for y in Array(64..<69) + Array(73..<77) {
            for x in 200..<250 {
                for (c, value) in [120, 132, 85].enumerated() { strip.data[(y * 300 + x) * 3 + c] = Float(value) }
            }
        }
        func purpleBook(_ segmenter: SpineSegmenter) -> StripSegment? {
            let analysis = segmenter.analyse(strip)
            let found = (0..<(analysis.cuts.count - 1)).compactMap { segmenter.segment(analysis, index: $0) }
            return found.first { $0.u0 <= 225 && 225 < $0.u1 }
        }
        let book = purpleBook(SpineSegmenter())
        #expect(book.map { abs($0.top - 60) <= 3 } == true, "top \(book?.top ?? -1)")
        // Against the dozen lines below alone, the top was not taken and the book was lost as a gap.
        var shortSighted = SpineSegmenter()
        shortSighted.topsAgainstSpineColour = false
        #expect(purpleBook(shortSighted).map { abs($0.top - 60) <= 3 } != true)
    }

    @Test("a shelf board whose lower edge fades over two dozen lines is the board: books keep their own tops")
    func blurredBoardEdgeIsTheBoard() {
        // A brown board over lines 0..<20 fades (smoothstep) into the dark back over lines 20..<44, too slowly for
        // most columns to step over 4 lines; books stand on the bottom line with their tops at lines 80…120.
        let (width, height) = (400, 240)
        let board: (Float, Float, Float) = (40, 30, 24), back: (Float, Float, Float) = (8, 6, 5)
        let colours: [(Float, Float, Float)] = [(200, 60, 50), (40, 150, 70), (230, 200, 110), (60, 70, 200), (240, 140, 30)]
        let tops = [80, 120, 95, 110, 100]
        var strip = Self.strip(width: width, height: height, books: [(0, width, 0, back)] + tops.indices.map { k in (k * 80, 80, tops[k], colours[k]) })
        for y in 0..<44 {
            let t = y < 20 ? 0 : Float(y - 20) / 24
            let f = t * t * (3 - 2 * t)
            let c = [board.0 + (back.0 - board.0) * f, board.1 + (back.1 - board.1) * f, board.2 + (back.2 - board.2) * f]
            for x in 0..<width { for k in 0..<3 { strip.data[(y * width + x) * 3 + k] = c[k] } }
        }
        func foundTops(_ segmenter: SpineSegmenter) -> [Int?] {
            let analysis = segmenter.analyse(strip)
            let found = (0..<(analysis.cuts.count - 1)).compactMap { segmenter.segment(analysis, index: $0) }
            return tops.indices.map { k in found.first { $0.u0 <= k * 80 + 40 && k * 80 + 40 < $0.u1 }?.top }
        }
        let found = foundTops(SpineSegmenter())
        for (k, top) in tops.enumerated() {
            #expect(found[k].map { abs($0 - top) <= 4 } == true, "book \(k): top \(found[k] ?? -1), drawn at \(top)")
        }
        // Looking over 4 lines only, the board was missed and the boxes reached up into its fading edge.
        var nearSighted = SpineSegmenter()
        nearSighted.wideBoardAcross = 2
        #expect(foundTops(nearSighted).allSatisfy { ($0 ?? height) < 60 })
    }
}
