import ImageKit

/// Makes a sampled strip easy for Tesseract: contrast stretched to dark text on white (inverting
/// light-on-dark spines) and a white border around the tight crop.
enum StripPreparer {
    /// Pixels of white added on every side.
    static let border = 12

    /// The prepared strip, or nil when it holds no contrast at all (nothing to read).
    static func prepare(_ strip: GrayImage) -> GrayImage? {
        var histogram = [Int](repeating: 0, count: 256)
        for v in strip.pixels { histogram[Int(v)] += 1 }
        let total = strip.pixels.count
        func percentile(_ p: Double) -> Int {
            let target = Int(Double(total) * p)
            var seen = 0
            for (value, count) in histogram.enumerated() {
                seen += count
                if seen > target { return value }
            }
            return 255
        }
        let lo = percentile(0.01), hi = percentile(0.99), median = percentile(0.5)
        guard hi - lo >= 24 else { return nil }
        // The background is the majority: when the median sits nearer the dark end, the text is light.
        let invert = median - lo < hi - median
        let range = Float(hi - lo)
        let w = strip.width + 2 * border, h = strip.height + 2 * border
        var out = [UInt8](repeating: 255, count: w * h)
        strip.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<strip.height {
                    for x in 0..<strip.width {
                        var v = (Float(src[y * strip.width + x]) - Float(lo)) / range
                        v = min(1, max(0, v))
                        if invert { v = 1 - v }
                        dst[(y + border) * w + x + border] = UInt8((v * 255).rounded())
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }

    /// Unsharp mask: the strip plus `amount` times its difference from a box blur of `radius`
    /// (two passes of a running sum, so the cost does not grow with the radius).
    static func sharpened(_ image: GrayImage, radius: Int, amount: Float) -> GrayImage {
        let w = image.width, h = image.height
        var horizontal = [Float](repeating: 0, count: w * h)
        var blurred = [Float](repeating: 0, count: w * h)
        image.pixels.withUnsafeBufferPointer { src in
            for y in 0..<h {
                var sum: Float = 0
                let row = y * w
                for x in -radius...radius { sum += Float(src[row + min(w - 1, max(0, x))]) }
                for x in 0..<w {
                    horizontal[row + x] = sum / Float(2 * radius + 1)
                    sum += Float(src[row + min(w - 1, x + radius + 1)]) - Float(src[row + max(0, x - radius)])
                }
            }
        }
        for x in 0..<w {
            var sum: Float = 0
            for y in -radius...radius { sum += horizontal[min(h - 1, max(0, y)) * w + x] }
            for y in 0..<h {
                blurred[y * w + x] = sum / Float(2 * radius + 1)
                sum += horizontal[min(h - 1, y + radius + 1) * w + x] - horizontal[max(0, y - radius) * w + x]
            }
        }
        var out = image
        for i in 0..<(w * h) {
            let v = Float(image.pixels[i])
            out.pixels[i] = UInt8(max(0, min(255, (v + amount * (v - blurred[i])).rounded())))
        }
        return out
    }

    /// How wide the strip's sharpest edges are, in its pixels: the contrast (1st to 99th percentile)
    /// over the 99th percentile of the horizontal and vertical differences. About 1–2 for crisp
    /// lettering, more the more the photo is blurred (or the strip enlarged).
    static func edgeWidth(_ image: GrayImage) -> Double {
        let w = image.width, h = image.height
        guard w > 2, h > 2 else { return 0 }
        var values = [Int](repeating: 0, count: 256)
        var gradients = [Int](repeating: 0, count: 256)
        image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<(h - 1) {
                for x in 0..<(w - 1) {
                    let v = Int(p[y * w + x])
                    values[v] += 1
                    gradients[max(abs(Int(p[y * w + x + 1]) - v), abs(Int(p[(y + 1) * w + x]) - v))] += 1
                }
            }
        }
        func percentile(_ histogram: [Int], _ q: Double) -> Int {
            let target = Int(Double(histogram.reduce(0, +)) * q)
            var seen = 0
            for (value, count) in histogram.enumerated() {
                seen += count
                if seen > target { return value }
            }
            return 255
        }
        let contrast = percentile(values, 0.99) - percentile(values, 0.01)
        return Double(contrast) / Double(max(1, percentile(gradients, 0.99)))
    }
}
