import ImageKit
import Testing

@testable import SpineReading

/// The blur measure that decides whether a strip is sharpened, and the unsharp mask itself.
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

    @Test("the unsharp mask steepens soft edges and keeps the size; a flat strip stays flat")
    func sharpening() throws {
        let soft = try #require(Self.bars(ramp: 6))
        let sharpened = StripPreparer.sharpened(soft, radius: 3, amount: 2)
        #expect(sharpened.width == soft.width && sharpened.height == soft.height)
        #expect(StripPreparer.edgeWidth(sharpened) < StripPreparer.edgeWidth(soft))
        let flat = try #require(GrayImage(width: 30, height: 10, pixels: [UInt8](repeating: 128, count: 300)))
        #expect(StripPreparer.sharpened(flat, radius: 3, amount: 2) == flat)
    }
}
