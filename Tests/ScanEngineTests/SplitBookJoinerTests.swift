import Testing

@testable import ScanEngine

/// Books cut in two along their lettering, joined again; real neighbours left apart.
@Suite("Joining a book cut along its lettering")
struct SplitBookJoinerTests {
    static let red: (Float, Float, Float) = (150, 70, 60)

    /// Segments between `cuts` of the analysed `strip`, left to right.
    static func segments(_ strip: RowStrip, cuts: [Int]) -> (SpineSegmenter.Analysis, [StripSegment]) {
        let segmenter = SpineSegmenter()
        var analysis = segmenter.analyse(strip)
        analysis.cuts = cuts
        return (analysis, (0..<(cuts.count - 1)).compactMap { segmenter.segment(analysis, index: $0) })
    }

    /// One red book (columns 40..<260, top at line 130 of 300) between two others, with lines of dark letters in
    /// columns 130..<150 from line 170 down: 8 lines of ink, 10 of spine, as letters down a spine are.
    static func letteredBook() -> RowStrip {
        let books = [(0, 40, 110, (60, 120, 170)), (40, 220, 130, red), (260, 40, 150, (220, 200, 120))]
        var strip = SpineSegmenterTests.strip(width: 300, height: 300, books: books)
        for y in 170..<290 where (y - 170) % 18 < 8 {
            for x in 130..<150 {
                for (c, value) in [40, 20, 20].enumerated() { strip.data[(y * 300 + x) * 3 + c] = Float(value) }
            }
        }
        return strip
    }

    @Test("a book cut at the edge of its lettering is one book again")
    func letteringCutIsJoined() {
        let (analysis, found) = Self.segments(Self.letteredBook(), cuts: [0, 40, 130, 260, 300])
        #expect(found.count == 4)
        let joined = SpineSegmenter().joiningSplitBooks(found, analysis)
        #expect(joined.map { [$0.u0, $0.u1] } == [[0, 40], [40, 260], [260, 300]])
    }

    @Test("two look-alike books with a seam between them stay two")
    func seamIsNotJoined() {
        let (analysis, found) = Self.segments(SeamFinderTests.twins(depth: 10), cuts: [0, 40, 150, 260, 300])
        #expect(found.count == 4)
        let joined = SpineSegmenter().joiningSplitBooks(found, analysis)
        #expect(joined.count == 4, "\(joined.map { [$0.u0, $0.u1] })")
        // However faint the boundary evidence is taken to be, the seam keeps them apart; without the seam test
        // they would be joined.
        var lenient = SpineSegmenter()
        lenient.joiner.evidenceShare = 100
        #expect(lenient.joiningSplitBooks(found, analysis).count == 4)
        lenient.seams.minDepth = .infinity
        #expect(lenient.joiningSplitBooks(found, analysis).count == 3)
    }

    @Test("neighbours of different colours stay apart")
    func differentColoursAreNotJoined() {
        let books = [(0, 40, 110, (60, 120, 170)), (40, 110, 130, Self.red), (150, 110, 130, (120, 90, 60)), (260, 40, 150, (220, 200, 120))]
        let (analysis, found) = Self.segments(SpineSegmenterTests.strip(width: 300, height: 300, books: books), cuts: [0, 40, 150, 260, 300])
        #expect(SpineSegmenter().joiningSplitBooks(found, analysis).count == found.count)
    }

    /// A red book in columns 40..<100 (top at line 130 of 300) between two others, with a light title in columns
    /// `title` from line 170 down to line 270; and, with `twin`, a second red book beside it in columns 100..<160.
    static func titledBook(title: Range<Int>, twin: Bool = false) -> RowStrip {
        var books = [(0, 40, 110, (60, 120, 170)), (40, 60, 130, red)]
        books += twin ? [(100, 60, 130, red), (160, 40, 150, (220, 200, 120))] : [(100, 40, 150, (220, 200, 120))]
        let width = twin ? 200 : 140
        var strip = SpineSegmenterTests.strip(width: width, height: 300, books: books)
        for y in 170..<270 where (y - 170) % 18 < 14 {
            for x in title {
                for (c, value) in [235, 220, 160].enumerated() { strip.data[(y * width + x) * 3 + c] = Float(value) }
            }
        }
        return strip
    }

    @Test("a book cut along its title's edge into a narrow and a wide piece is one book again, however sharp the edge")
    func lopsidedLetteringCutIsJoined() {
        let (analysis, found) = Self.segments(Self.titledBook(title: 58..<78), cuts: [0, 40, 58, 100, 140])
        #expect(found.count == 4)
        #expect(SpineSegmenter().joiningSplitBooks(found, analysis).map { [$0.u0, $0.u1] } == [[0, 40], [40, 100], [100, 140]])
        // The title's edge is as sharp as a boundary: by the boundary evidence alone the pieces stay apart.
        var evidenceOnly = SpineSegmenter()
        evidenceOnly.joiner.letteringContrast = .infinity
        #expect(evidenceOnly.joiningSplitBooks(found, analysis).count == 4)
    }

    @Test("two books of the same width and colour with a title at the cut stay two")
    func evenPiecesStayApart() {
        let (analysis, found) = Self.segments(Self.titledBook(title: 100..<120, twin: true), cuts: [0, 40, 100, 160, 200])
        #expect(found.count == 4)
        #expect(SpineSegmenter().joiningSplitBooks(found, analysis).count == 4)
    }
}
