import ImageKit
import Testing

@testable import ScanEngine

/// Detection computes its blurred gradients and smoothed strips a few lines at a time (so that no second
/// image-sized buffer is held); these tests hold them to the whole-image computations they replace.
@Suite("Detection's line-at-a-time buffers")
struct WorkingMemoryTests {
    /// Deterministic noise with structure: a gradient, stripes and pseudo-random bytes.
    static func pixels(width: Int, height: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<(width * height * 3)).map { i in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Int(truncatingIfNeeded: state >> 58)
            let x = (i / 3) % width, y = (i / 3) / width
            return UInt8(clamping: (x * 7 + y * 3 + (x / 5 % 2) * 90 + noise * 2 + (i % 3) * 20) % 256)
        }
    }

    /// 3×3 box blur of the whole image, then central differences and the channel mean.
    static func wholeImageGradients(_ p: [UInt8], width w: Int, height h: Int) -> (gx: [Float], gy: [Float], mean: [Float]) {
        func reflect(_ i: Int, _ n: Int) -> Int { Signal.reflect(i, n) }
        var across = [Float](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                for c in 0..<3 {
                    across[(y * w + x) * 3 + c] =
                        (Float(p[(y * w + reflect(x - 1, w)) * 3 + c]) + Float(p[(y * w + x) * 3 + c])
                            + Float(p[(y * w + reflect(x + 1, w)) * 3 + c])) / 3
                }
            }
        }
        var a = [Float](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for i in 0..<(w * 3) {
                a[y * w * 3 + i] = (across[reflect(y - 1, h) * w * 3 + i] + across[y * w * 3 + i] + across[reflect(y + 1, h) * w * 3 + i]) / 3
            }
        }
        var gx = [Float](repeating: 0, count: w * h), gy = gx, mean = gx
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                mean[i] = (a[i * 3] + a[i * 3 + 1] + a[i * 3 + 2]) / 3
                if x > 0 && x < w - 1 {
                    gx[i] = abs(a[(i + 1) * 3] - a[(i - 1) * 3]) + abs(a[(i + 1) * 3 + 1] - a[(i - 1) * 3 + 1])
                        + abs(a[(i + 1) * 3 + 2] - a[(i - 1) * 3 + 2])
                }
                if y > 0 && y < h - 1 {
                    gy[i] = abs(a[(i + w) * 3] - a[(i - w) * 3]) + abs(a[(i + w) * 3 + 1] - a[(i - w) * 3 + 1])
                        + abs(a[(i + w) * 3 + 2] - a[(i - w) * 3 + 2])
                }
            }
        }
        return (gx, gy, mean)
    }

    @Test("blurred gradients line by line equal the whole-image blur's, on tall, flat and tiny images", arguments: [
        (37, 23), (5, 41), (64, 1), (1, 9), (2, 2), (9, 3),
    ])
    func gradients(size: (Int, Int)) {
        let (w, h) = size
        let p = Self.pixels(width: w, height: h, seed: UInt64(w * 1000 + h))
        let streamed = WorkImage(width: w, height: h, pixels: p).blurredGradients()
        let whole = Self.wholeImageGradients(p, width: w, height: h)
        #expect(streamed.gx == whole.gx)
        #expect(streamed.gy == whole.gy)
        #expect(streamed.mean == whole.mean)
        #expect(whole.gy.contains { $0 > 0 } == (h > 2))
    }

    @Test("a strip smoothed in place equals the 5-line average of a copy, edges reflected", arguments: [
        (31, 17), (6, 1), (6, 2), (4, 3), (8, 5), (3, 40),
    ])
    func smoothing(size: (Int, Int)) {
        let (w, h) = size
        let data = Self.pixels(width: w, height: h, seed: UInt64(h * 977 + w)).map { Float($0) * 0.75 + 0.125 }
        var strip = RowStrip(width: w, height: h, data: data)
        strip.smoothVertically()
        var expected = [Float](repeating: 0, count: data.count)
        for v in 0..<h {
            for i in 0..<(w * 3) {
                var s: Float = 0
                for k in -2...2 { s += data[Signal.reflect(v + k, h) * w * 3 + i] }
                expected[v * w * 3 + i] = s / 5
            }
        }
        #expect(strip.data == expected)
        #expect(h < 3 || strip.data != data)
    }

    @Test("a working image keeps a DCT-scaled decode's bytes and box-averages (rounded) a larger one")
    func adoptsOrShrinks() throws {
        let small = try #require(PixelBuffer(width: 8, height: 6, pixels: Self.pixels(width: 8, height: 6, seed: 3)))
        #expect(WorkImage(small, targetLongSide: 8).pixels == small.pixels)
        #expect(WorkImage(small, targetLongSide: 5).pixels == small.pixels)
        let shrunk = WorkImage(small, targetLongSide: 4)
        #expect(shrunk.width == 4 && shrunk.height == 3)
        // Top-left output pixel, red: the rounded mean of the 2×2 block's red bytes.
        let block = [0, 1, 8, 9].map { Int(small.pixels[$0 * 3]) }
        #expect(Int(shrunk.pixels[0]) == (block.reduce(0, +) + 2) / 4)
    }

    @Test("strip colours are the samples truncated to bytes, as the median colour counts them")
    func colours() {
        let strip = RowStrip(width: 2, height: 1, data: [0.9, 254.99, 255, 17.5, -0.0, 128.49])
        #expect(StripColors(strip).data == [0, 254, 255, 17, 0, 128])
    }
}
