import Foundation
import ImageKit
import Testing

@testable import SpineReading

/// Richardson–Lucy deconvolution of blurred strips: it must bring a Gaussian-blurred strip back
/// towards the crisp one, at its own resolution and through the shrunk path, and leave flat strips flat.
@Suite("Deblurring a strip")
struct StripDeblurrerTests {
    /// `image` blurred by a Gaussian of `sigma` (edges repeated), written here as the oracle: a plain
    /// two-dimensional sum, not the deblurrer's separable passes.
    static func gaussianBlurred(_ image: GrayImage, sigma: Double) -> GrayImage {
        let r = Int((3 * sigma).rounded(.up))
        let w = image.width, h = image.height
        var weights: [[Double]] = []
        var total = 0.0
        for dy in -r...r {
            weights.append((-r...r).map { dx in exp(-Double(dx * dx + dy * dy) / (2 * sigma * sigma)) })
            total += weights.last?.reduce(0, +) ?? 0
        }
        var out = image
        for y in 0..<h {
            for x in 0..<w {
                var sum = 0.0
                for dy in -r...r {
                    let row = min(h - 1, max(0, y + dy)) * w
                    for dx in -r...r { sum += weights[dy + r][dx + r] * Double(image.pixels[row + min(w - 1, max(0, x + dx))]) }
                }
                out.pixels[y * w + x] = UInt8(max(0, min(255, (sum / total).rounded())))
            }
        }
        return out
    }

    /// Mean absolute difference of two same-sized images, away from a `margin` at the edges.
    static func difference(_ a: GrayImage, _ b: GrayImage, margin: Int) -> Double {
        var sum = 0.0, n = 0
        for y in margin..<(a.height - margin) {
            for x in margin..<(a.width - margin) {
                sum += abs(Double(a.pixels[y * a.width + x]) - Double(b.pixels[y * a.width + x]))
                n += 1
            }
        }
        return sum / Double(max(1, n))
    }

    /// σ 2 is undone at the strip's resolution; σ 4 on the strip shrunk by 3 and enlarged back, which
    /// caps how steep its edges can come back (bilinear over 3 pixels).
    @Test(
        "a Gaussian blur is largely undone, at the strip's resolution and through the shrunk path",
        arguments: [(2.0, 0.6, 0.7), (4.0, 0.75, 0.8)])
    func undoesGaussianBlur(sigma: Double, errorRatio: Double, edgeRatio: Double) throws {
        // Bars 12 px wide, 24 px apart (odd sizes: the shrunk path's partial blocks).
        let crisp = try #require(StripPreparerTests.bars(width: 241, height: 61, period: 24, ramp: 1))
        let blurred = Self.gaussianBlurred(crisp, sigma: sigma)
        let restored = StripDeblurrer.deconvolved(blurred, sigma: sigma, rounds: 20)
        #expect(restored.width == crisp.width && restored.height == crisp.height)
        let before = Self.difference(blurred, crisp, margin: 8), after = Self.difference(restored, crisp, margin: 8)
        #expect(after < errorRatio * before, "σ \(sigma): mean error \(before) blurred, \(after) restored")
        #expect(StripPreparer.edgeWidth(restored) < edgeRatio * StripPreparer.edgeWidth(blurred))
        // The bars stay where they were: mid-bar dark, mid-gap light.
        for y in [20, 30, 40] {
            #expect(restored.pixels[y * 241 + 12 * 2 + 12] < 90)
            #expect(restored.pixels[y * 241 + 12 * 2 + 1] > 200)
        }
    }

    @Test("a flat strip stays flat; a strip too small to shrink is deblurred at its own size")
    func flatAndSmall() throws {
        let flat = try #require(GrayImage(width: 90, height: 30, pixels: [UInt8](repeating: 140, count: 2_700)))
        for sigma in [1.0, 3.0, 6.0] {
            let out = StripDeblurrer.deconvolved(flat, sigma: sigma, rounds: 20)
            #expect(out.pixels.allSatisfy { abs(Int($0) - 140) <= 1 }, "σ \(sigma)")
        }
        let tiny = try #require(StripPreparerTests.bars(width: 10, height: 6, period: 6, ramp: 2))
        #expect(StripDeblurrer.deconvolved(tiny, sigma: 5, rounds: 5).width == 10)
    }

    @Test("shrinking averages whole and partial blocks; enlarging a constant image keeps it constant")
    func shrinkAndEnlarge() throws {
        let image = try #require(GrayImage(width: 5, height: 3, pixels: [10, 20, 30, 40, 50, 10, 20, 30, 40, 50, 100, 100, 100, 100, 100]))
        let small = try #require(StripDeblurrer.shrunk(image, by: 2))
        #expect(small.width == 3 && small.height == 2)
        #expect(small.pixels == [15, 35, 50, 100, 100, 100])
        let constant = try #require(GrayImage(width: 3, height: 2, pixels: [77, 77, 77, 77, 77, 77]))
        let large = try #require(StripDeblurrer.enlarged(constant, toWidth: 8, height: 5))
        #expect(large.width == 8 && large.height == 5 && large.pixels.allSatisfy { $0 == 77 })
    }
}
