import Foundation
import ImageKit
import Testing

@testable import SpineReading

/// The blur and grain measures that decide how a strip is prepared, the black-and-white strip and the background flattening.
@Suite("Preparing a strip")
struct StripPreparerTests {
    /// Dark bars on white, `period` pixels apart, each edge a ramp `ramp` pixels wide.
    static func bars(width: Int = 120, height: Int = 40, period: Int = 20, ramp: Int) -> GrayImage? {
        var pixels = [UInt8](repeating: 255, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let phase = x % period
                let distance = Double(min(abs(phase - period / 4), abs(phase - 3 * period / 4)))  // to the nearest edge
                let inside = phase > period / 4 && phase < 3 * period / 4
                let t = min(1, distance / Double(max(1, ramp)) + 0.5 / Double(max(1, ramp)))
                let value = inside ? 255 * (1 - t) * 0.5 + 20 * t : 255 * t + 137.5 * (1 - t)
                pixels[y * width + x] = UInt8(max(0, min(255, value.rounded())))
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    @Test("crisp edges measure about one pixel, soft ones their width")
    func edgeWidth() throws {
        let crisp = try #require(Self.bars(ramp: 1)), soft = try #require(Self.bars(ramp: 6))
        #expect(StripPreparer.edgeWidth(crisp) < 2)
        #expect(StripPreparer.edgeWidth(soft) > 4)
        #expect(StripPreparer.edgeWidth(crisp) < ReadingTuning().blurredEdgeWidth)
        #expect(StripPreparer.edgeWidth(soft) >= ReadingTuning().blurredEdgeWidth)
    }

    /// `image` with Gaussian noise of `sigma` gray levels added (a fixed seed: the same every run).
    static func noisy(_ image: GrayImage, sigma: Double) -> GrayImage {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func uniform() -> Double {  // SplitMix64, in (0, 1)
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return (Double((z ^ (z >> 31)) >> 11) + 0.5) / Double(UInt64(1) << 53)
        }
        var out = image
        for i in out.pixels.indices {
            let gaussian = (-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform())
            out.pixels[i] = UInt8(max(0, min(255, (Double(image.pixels[i]) + sigma * gaussian).rounded())))
        }
        return out
    }

    /// `image` enlarged `factor` times, each pixel a `factor`×`factor` block (grain spread as enlarging spreads it).
    static func enlarged(_ image: GrayImage, by factor: Int) -> GrayImage? {
        let w = image.width * factor, h = image.height * factor
        var pixels = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w { pixels[y * w + x] = image.pixels[(y / factor) * image.width + x / factor] }
        }
        return GrayImage(width: w, height: h, pixels: pixels)
    }

    @Test("grain is measured against the contrast: clean bars ~0, grain of σ 8 on them ~8 over their contrast, above the grainy-strip bar")
    func grain() throws {
        // Bars between gray levels ~32 and ~192, so that no grain is clipped at black or white.
        var bars = try #require(Self.bars(width: 200, height: 60, ramp: 1))
        bars.pixels = bars.pixels.map { UInt8(20 + Int($0) * 2 / 3) }
        #expect(StripPreparer.grain(bars, step: 1) < 0.002)
        let grainy = Self.noisy(bars, sigma: 8)
        let (lo, _, hi) = StripPreparer.levels(grainy.pixels)
        let measured = StripPreparer.grain(grainy, step: 1)
        let expected = 8 / Double(hi - lo)
        #expect(measured > 0.75 * expected && measured < 1.35 * expected, "measured \(measured), expected about \(expected)")
        #expect(measured >= ReadingTuning().grainyStrip)
        #expect(StripPreparer.grain(Self.noisy(bars, sigma: 1), step: 1) < ReadingTuning().grainyStrip)
    }

    @Test("in an enlarged strip grain is measured a photo pixel apart: the enlargement does not hide it")
    func grainOfEnlargedStrip() throws {
        let grainy = Self.noisy(try #require(Self.bars(width: 200, height: 60, ramp: 1)), sigma: 8)
        let enlarged = try #require(Self.enlarged(grainy, by: 3))
        let original = StripPreparer.grain(grainy, step: 1)
        let apart = StripPreparer.grain(enlarged, step: 3)
        #expect(abs(apart - original) < 0.2 * original, "a photo pixel apart \(apart), original \(original)")
        // Neighbours inside one enlarged pixel are equal: measured a strip pixel apart, most of the grain vanishes.
        #expect(StripPreparer.grain(enlarged, step: 1) < 0.5 * original)
    }

    @Test("making a strip black and white keeps its size; pixels above the threshold turn white, the rest black")
    func binarized() throws {
        let ramp = try #require(GrayImage(width: 256, height: 2, pixels: (0..<512).map { UInt8($0 % 256) }))
        let out = StripPreparer.binarized(ramp, threshold: 100)
        #expect(out.width == 256 && out.height == 2)
        for (i, v) in out.pixels.enumerated() { #expect(v == (i % 256 > 100 ? 255 : 0)) }
    }

    @Test("a light label on a darker spine: both backgrounds come out white, the lettering on each stays dark")
    func labelOnDarkerSpine() throws {
        // 300×60: the left 140 px a mid-grey spine (120) with black strokes (20), the rest a white
        // label (240) with grey strokes (170, low contrast). Strokes are 4 px wide, 12 px apart.
        let width = 300, height = 60
        var pixels = [UInt8](repeating: 0, count: width * height)
        func stroke(_ x: Int, _ y: Int) -> Bool { y >= 20 && y < 40 && x % 16 >= 6 && x % 16 < 10 && x % 150 > 20 && x % 150 < 130 }
        for y in 0..<height {
            for x in 0..<width {
                let label = x >= 140
                pixels[y * width + x] = stroke(x, y) ? (label ? 170 : 20) : (label ? 240 : 120)
            }
        }
        let strip = try #require(GrayImage(width: width, height: height, pixels: pixels))
        // Backgrounds (away from the strokes and the seam) are white on both sides; every stroke is
        // darker than any background by a margin Otsu cannot miss.
        try Self.expectPrepared(
            strip, white: [(60, 5), (60, 50), (240, 5), (240, 50), (10, 30), (290, 30)],
            dark: [(38, 30), (102, 30), (182, 30), (246, 30)], darkAtMost: 200, stroke: stroke)
    }

    /// Prepares `strip` and expects the `white` points (strip pixels) at 235 or more and the `dark`
    /// ones, each on a stroke, at `darkAtMost` or less.
    static func expectPrepared(
        _ strip: GrayImage, white: [(Int, Int)], dark: [(Int, Int)], darkAtMost: UInt8, stroke: (Int, Int) -> Bool
    ) throws {
        let prepared = try #require(StripPreparer.prepare(strip))
        let b = StripPreparer.border
        func at(_ x: Int, _ y: Int) -> UInt8 { prepared.pixels[(y + b) * prepared.width + x + b] }
        for (x, y) in white {
            #expect(at(x, y) >= 235, "background at \(x),\(y) is \(at(x, y))")
        }
        for (x, y) in dark {
            #expect(stroke(x, y))
            #expect(at(x, y) <= darkAtMost, "stroke at \(x),\(y) is \(at(x, y))")
        }
    }

    /// 400×60: a dark spine (50) with light strokes (200) on its left 180 px, a light label (220) with
    /// dark strokes (40) on the rest. Strokes are 4 px wide, 12 px apart, rows 20…39.
    static func twoWayStrip() -> (GrayImage?, (Int, Int) -> Bool) {
        let width = 400, height = 60
        func stroke(_ x: Int, _ y: Int) -> Bool { y >= 20 && y < 40 && x % 16 >= 6 && x % 16 < 10 && (x % 200) > 20 && (x % 200) < 160 }
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let label = x >= 180
                pixels[y * width + x] = stroke(x, y) ? (label ? 40 : 200) : (label ? 220 : 50)
            }
        }
        return (GrayImage(width: width, height: height, pixels: pixels), stroke)
    }

    @Test("a light label with dark strokes on a dark spine with light ones: every stroke dark, every background white")
    func labelOfOtherPolarity() throws {
        let (made, stroke) = Self.twoWayStrip()
        let strip = try #require(made)
        #expect(StripPreparer.pieces(strip) == [0..<180, 180..<400])
        try Self.expectPrepared(
            strip, white: [(60, 5), (60, 50), (300, 5), (300, 50), (10, 30), (390, 30)],
            dark: [(38, 30), (102, 30), (230, 30), (310, 30)], darkAtMost: 60, stroke: stroke)
    }

    @Test("a short dark label with light lettering (half the spine's width long) is a piece of its own and reads dark on white")
    func shortLabel() throws {
        // A light spine (200), 600 px long and 100 across, with a dark label (30) from 200 to 250 holding
        // light strokes (220): the title of a wide spine in a box, the author (dark strokes) further on.
        let width = 600, height = 100
        func stroke(_ x: Int, _ y: Int) -> Bool { y >= 40 && y < 60 && x % 10 >= 4 && x % 10 < 7 && ((x > 205 && x < 245) || (x > 400 && x < 500)) }
        let pixels = (0..<(width * height)).map { i -> UInt8 in
            let x = i % width, y = i / width
            let label = x >= 200 && x < 250
            return stroke(x, y) ? (label ? 220 : 40) : (label ? 30 : 200)
        }
        let strip = try #require(GrayImage(width: width, height: height, pixels: pixels))
        #expect(StripPreparer.pieces(strip) == [0..<200, 200..<250, 250..<600])
        try Self.expectPrepared(
            strip, white: [(100, 20), (226, 20), (226, 80), (550, 50)], dark: [(214, 50), (234, 50), (424, 50)], darkAtMost: 60, stroke: stroke)
    }

    @Test("thin bands across a spine do not cut it into pieces")
    func bandsAreNotPieces() throws {
        // A dark spine (50) with two light bands (230) 4 px wide, as gilt lines on a spine.
        let width = 400, height = 60
        let pixels = (0..<(width * height)).map { i -> UInt8 in
            let x = i % width
            return (x >= 40 && x < 44) || (x >= 350 && x < 354) ? 230 : 50
        }
        let strip = try #require(GrayImage(width: width, height: height, pixels: pixels))
        #expect(StripPreparer.pieces(strip) == [0..<400])
    }
}

/// How much a strip is enlarged or shrunk for the width of its spine.
@Suite("The scale of a strip")
struct StripScaleTests {
    let tuning = ReadingTuning()
    var reader: SpineReader { SpineReader(tuning: tuning) }

    @Test("a narrow spine's strip along it is fitted to the strip height, at most `maximumUpscale`")
    func narrowSpine() {
        let width = 40.0
        let fitted = tuning.alongStripHeight / (width * (1 - 2 * tuning.alongTrim))
        #expect(abs(reader.stripScale(spineWidth: width, direction: .alongForward) - fitted) < 1e-9)
        #expect(reader.stripScale(spineWidth: 5, direction: .alongForward) == tuning.maximumUpscale)
    }

    @Test("a wide spine's strip along it is never shrunk below `minimumAlongScale`; across it is fitted to its width")
    func wideSpine() {
        let width = 400.0
        #expect(tuning.alongStripHeight / (width * (1 - 2 * tuning.alongTrim)) < tuning.minimumAlongScale)
        #expect(reader.stripScale(spineWidth: width, direction: .alongForward) == tuning.minimumAlongScale)
        #expect(reader.stripScale(spineWidth: width, direction: .alongBackward) == tuning.minimumAlongScale)
        let across = tuning.acrossStripWidth / (width * (1 - 2 * tuning.acrossTrim))
        #expect(abs(reader.stripScale(spineWidth: width, direction: .across) - across) < 1e-9)
    }
}
