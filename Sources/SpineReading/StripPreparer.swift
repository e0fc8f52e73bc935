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
}
