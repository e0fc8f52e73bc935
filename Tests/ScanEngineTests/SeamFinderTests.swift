import Testing

@testable import ScanEngine

/// Faint seams between neighbours that look alike, on row strips painted by hand.
@Suite("Seams between look-alike neighbours")
struct SeamFinderTests {
    /// Deterministic grain: roughly normal, standard deviation `sigma`, the same for every run.
    static func grain(_ strip: inout RowStrip, sigma: Float, seed: UInt64) {
        var state = seed
        func uniform() -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(state >> 40) / Float(1 << 24)
        }
        for i in strip.data.indices {
            // Sum of four uniforms: variance 4/12, scaled to sigma.
            let g = (uniform() + uniform() + uniform() + uniform() - 2) * 1.7320508
            strip.data[i] = min(255, max(0, strip.data[i] + g * sigma))
        }
    }

    /// Two books of the same colour and height (tops at line 130 of 300), columns 40..<150 and 150..<260, between
    /// two others, with `depth` levels darker columns 149 and 150 from `seamTop` down, and grain.
    static func twins(depth: Float, seamTop: Int = 130, sigma: Float = 14) -> RowStrip {
        let colour: (Float, Float, Float) = (150, 70, 60)
        let books = [(0, 40, 110, (60, 120, 170)), (40, 110, 130, colour), (150, 110, 130, colour), (260, 40, 150, (220, 200, 120))]
        var strip = SpineSegmenterTests.strip(width: 300, height: 300, books: books)
        for y in seamTop..<300 {
            for x in 149...150 {
                for c in 0..<3 { strip.data[(y * 300 + x) * 3 + c] -= depth }
            }
        }
        grain(&strip, sigma: sigma, seed: 7)
        return strip
    }

    static func cutNear(_ column: Int, in cuts: [Int]) -> Bool {
        cuts.contains { abs($0 - column) <= 2 }
    }

    @Test("a faint seam between two books alike, under grain, becomes a cut; without seams it did not")
    func faintSeamIsACut() {
        let strip = Self.twins(depth: 10)
        let withSeams = SpineSegmenter().analyse(strip)
        #expect(Self.cutNear(150, in: withSeams.cuts), "cuts \(withSeams.cuts)")
        var blind = SpineSegmenter()
        blind.seams.minDepth = .infinity
        let without = blind.analyse(strip)
        #expect(!Self.cutNear(150, in: without.cuts), "the boundary evidence alone found it: cuts \(without.cuts)")
        // Both books come out whole.
        let segmenter = SpineSegmenter()
        let found = (0..<(withSeams.cuts.count - 1)).compactMap { segmenter.segment(withSeams, index: $0) }
        #expect(found.contains { abs($0.u0 - 40) <= 2 && abs($0.u1 - 150) <= 2 }, "\(found.map { ($0.u0, $0.u1) })")
        #expect(found.contains { abs($0.u0 - 150) <= 2 && abs($0.u1 - 260) <= 2 }, "\(found.map { ($0.u0, $0.u1) })")
    }

    @Test("a dark line down only part of a spine (lettering) is no seam")
    func partialLineIsNoSeam() {
        // The same darker columns from line 180 down: 70 % of the books' height, like a title.
        let strip = Self.twins(depth: 10, seamTop: 180)
        let finder = SeamFinder()
        let tops = [Float](repeating: 130, count: 300)
        #expect(finder.depth(strip, tops: tops)[149...150].allSatisfy { $0 < finder.minDepth })
        #expect(!Self.cutNear(150, in: SpineSegmenter().analyse(strip).cuts))
        // Down the whole height it is one.
        #expect(finder.depth(Self.twins(depth: 10), tops: tops)[149...150].contains { $0 >= finder.minDepth })
    }

    @Test("a seam close to a cut (the shaded edge of a spine) adds no sliver; one between cuts does")
    func seamNearACutAddsNoSliver() {
        let grey: (Float, Float, Float) = (140, 140, 140)
        var strip = SpineSegmenterTests.strip(width: 200, height: 120, books: [(0, 200, 20, grey)])
        for y in 20..<120 {
            for x in [23, 120] {
                for c in 0..<3 { strip.data[(y * 200 + x) * 3 + c] -= 30 }
            }
        }
        let tops = [Float](repeating: 20, count: 200)
        // Median spacing of these cuts is 40: a seam must be at least 8 columns from every cut.
        let finder = SeamFinder()
        let cuts = finder.cuts(adding: [0, 17, 60, 100, 140, 200], depths: finder.depth(strip, tops: tops))
        #expect(cuts == [0, 17, 60, 100, 120, 140, 200])
    }
}
