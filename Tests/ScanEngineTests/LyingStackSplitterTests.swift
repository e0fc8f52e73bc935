import ScanProtocol
import Testing


@testable import ScanEngine

/// Wide candidates split into lying books, with each book the stack finder already has kept once.
@Suite("Splitting a stack of lying books")
struct LyingStackSplitterTests {
    /// Lines (top..<bottom) of the three lying books painted in columns 50..<250 of a 300 × 300 strip.
    static let stack = [240..<300, 190..<240, 145..<190]

    static func analysis() -> SpineSegmenter.Analysis {
        let colours: [(Float, Float, Float)] = [(210, 60, 50), (40, 160, 200), (230, 210, 90)]
        var strip = SpineSegmenterTests.strip(width: 300, height: 300, books: [])
        for (lines, colour) in zip(stack, colours) {
            for y in lines {
                for x in 50..<250 {
                    for (c, value) in [colour.0, colour.1, colour.2].enumerated() { strip.data[(y * 300 + x) * 3 + c] = value }
                }
            }
        }
        return SpineSegmenter().analyse(strip)
    }

    static func lying(_ lines: Range<Int>) -> StripSegment {
        StripSegment(u0: 50, u1: 250, top: lines.lowerBound, confidence: 0.5, color: RGBColor(r: 0, g: 0, b: 0), bottom: lines.upperBound, lying: true)
    }

    /// An upright candidate over the whole stack, as the segmenter cut it.
    static let overStack = StripSegment(u0: 55, u1: 245, top: 145, confidence: 1, color: RGBColor(r: 0, g: 0, b: 0))

    @Test("a wide candidate over a stack the finder chained adds no second copy of its books")
    func duplicatesAreLeftOut() {
        let analysis = Self.analysis()
        let splitter = LyingStackSplitter()
        let split = splitter.split(Self.overStack, analysis)
        #expect(split?.count == 3, "the candidate alone splits into the three books")
        let out = splitter.splitAll(Self.stack.map(Self.lying) + [Self.overStack], analysis)
        #expect(out.count == 3)
        #expect(out.allSatisfy { $0.confidence == 0.5 }, "the stack finder's books are kept")
        // Without the check each book comes out twice.
        var credulous = LyingStackSplitter()
        credulous.duplicateShare = 1
        #expect(credulous.splitAll(Self.stack.map(Self.lying) + [Self.overStack], analysis).count == 6)
    }

    @Test("a book the finder took for one, twice as thick as its thinnest, gives way to the two split off it")
    func mergedBookIsReplaced() {
        let analysis = Self.analysis()
        let finder = [Self.lying(190..<300), Self.lying(145..<190)]
        let out = LyingStackSplitter().splitAll(finder + [Self.overStack], analysis)
        let lines = out.map { $0.top..<($0.bottom ?? 300) }
        #expect(out.count == 3, "\(lines)")
        for expected in Self.stack {
            #expect(lines.contains { abs($0.lowerBound - expected.lowerBound) <= 5 && abs($0.upperBound - expected.upperBound) <= 5 }, "\(expected) in \(lines)")
        }
        // Not thick enough to be two books, the finder's book stands and what was split off it is left out.
        var strict = LyingStackSplitter()
        strict.mergedThickness = 3
        #expect(strict.splitAll(finder + [Self.overStack], analysis).map { $0.top..<($0.bottom ?? 300) } == [145..<190, 190..<300])
    }
}
