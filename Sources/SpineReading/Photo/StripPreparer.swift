import ImageKit

/// Makes a sampled strip easy for Tesseract: contrast stretched to dark text on white (inverting
/// light-on-dark spines) and a white border around the tight crop.
enum StripPreparer {
    /// Pixels of white added on every side.
    static let border = 12

    /// The prepared strip, or nil when it holds no contrast at all (nothing to read).
    static func prepare(_ strip: GrayImage) -> GrayImage? {
        guard let stretched = stretched(strip) else { return nil }
        // A light label on a darker spine, or shading along it: Tesseract's global threshold would
        // turn the darker background black. Every background is made white, then stretched again.
        let flat = flattened(stretched, window: max(minimumFlattenWindow, min(strip.width, strip.height) / 3))
        let (flatLo, _, flatHi) = levels(flat.pixels)
        let flatRange = Float(max(1, flatHi - flatLo))
        let w = strip.width + 2 * border, h = strip.height + 2 * border
        var out = [UInt8](repeating: 255, count: w * h)
        for y in 0..<strip.height {
            for x in 0..<strip.width {
                let v = min(1, max(0, (Float(flat.pixels[y * strip.width + x]) - Float(flatLo)) / flatRange))
                out[(y + border) * w + x + border] = UInt8(v * 255 + 0.5)
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }

    /// The 1st, 50th and 99th percentiles of `pixels`.
    static func levels(_ pixels: [UInt8]) -> (lo: Int, median: Int, hi: Int) {
        let histogram = GrayHistogram(pixels)
        return (histogram.percentile(0.01), histogram.percentile(0.5), histogram.percentile(0.99))
    }

    /// The smallest background window (pixels).
    static let minimumFlattenWindow = 15

    /// Each pixel over its local background: the brightest value within about `window` pixels (found on
    /// 4×4 blocks, then smoothed), as Leptonica's background normalisation does. Dark lettering on any
    /// lighter background comes out dark on white; the background's own steps and shading vanish.
    static func flattened(_ image: GrayImage, window: Int) -> GrayImage {
        let block = 4
        let w = image.width, h = image.height
        let bw = (w + block - 1) / block, bh = (h + block - 1) / block
        var small = [Float](repeating: 0, count: bw * bh)
        for y in 0..<h {
            for x in 0..<w {
                let i = (y / block) * bw + x / block
                small[i] = max(small[i], Float(image.pixels[y * w + x]))
            }
        }
        let r = max(1, window / (2 * block))
        // Brightest within r blocks (rows, then columns), then a box blur of the same reach.
        func pass(_ a: [Float], horizontal: Bool, brightest: Bool) -> [Float] {
            var out = a
            let (outer, inner) = horizontal ? (bh, bw) : (bw, bh)
            for o in 0..<outer {
                for i in 0..<inner {
                    var value: Float = 0
                    for d in -r...r {
                        let j = min(inner - 1, max(0, i + d))
                        let v = horizontal ? a[o * bw + j] : a[j * bw + o]
                        value = brightest ? max(value, v) : value + v
                    }
                    out[horizontal ? o * bw + i : i * bw + o] = brightest ? value : value / Float(2 * r + 1)
                }
            }
            return out
        }
        let peaks = pass(pass(small, horizontal: true, brightest: true), horizontal: false, brightest: true)
        let background = pass(pass(peaks, horizontal: true, brightest: false), horizontal: false, brightest: false)
        // Bilinear between block centres; the column weights are the same on every row.
        let columns = (0..<w).map { x in
            let fx = max(0, min(Float(bw - 1), (Float(x) + 0.5) / Float(block) - 0.5))
            let x0 = Int(fx)
            return (x0: x0, x1: min(bw - 1, x0 + 1), t: fx - Float(x0))
        }
        var out = image
        image.pixels.withUnsafeBufferPointer { src in
            out.pixels.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    let fy = max(0, min(Float(bh - 1), (Float(y) + 0.5) / Float(block) - 0.5))
                    let y0 = Int(fy), y1 = min(bh - 1, y0 + 1), ty = fy - Float(y0)
                    for x in 0..<w {
                        let c = columns[x]
                        let top = background[y0 * bw + c.x0] * (1 - c.t) + background[y0 * bw + c.x1] * c.t
                        let bottom = background[y1 * bw + c.x0] * (1 - c.t) + background[y1 * bw + c.x1] * c.t
                        let bg = max(1, top * (1 - ty) + bottom * ty)
                        dst[y * w + x] = UInt8(min(255, Float(src[y * w + x]) * 255 / bg + 0.5))
                    }
                }
            }
        }
        return out
    }

    /// How wide the strip's sharpest edges are, in its pixels: the contrast (1st to 99th percentile)
    /// over the 99th percentile of the horizontal and vertical differences. About 1–2 for crisp
    /// lettering, more the more the photo is blurred (or the strip enlarged).
    static func edgeWidth(_ image: GrayImage) -> Double {
        let w = image.width, h = image.height
        guard w > 2, h > 2 else { return 0 }
        var values = GrayHistogram()
        var gradients = GrayHistogram()
        image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<(h - 1) {
                for x in 0..<(w - 1) {
                    let v = Int(p[y * w + x])
                    values.add(UInt8(v))
                    gradients.add(UInt8(max(abs(Int(p[y * w + x + 1]) - v), abs(Int(p[(y + 1) * w + x]) - v))))
                }
            }
        }
        let contrast = values.percentile(0.99) - values.percentile(0.01)
        return Double(contrast) / Double(max(1, gradients.percentile(0.99)))
    }

    /// The image made black and white: pixels brighter than `threshold` white, the others black.
    static func binarized(_ image: GrayImage, threshold: UInt8) -> GrayImage {
        var out = image
        for i in out.pixels.indices { out.pixels[i] = out.pixels[i] > threshold ? 255 : 0 }
        return out
    }

    /// The strip's grain relative to its contrast: the standard deviation of its gray levels on a flat
    /// surface (Immerkær 1996: the median magnitude of a Laplacian that cancels flat areas and straight
    /// gradients; for Gaussian noise of σ its response has σ·6, its median magnitude 0.6745·6·σ) over the
    /// contrast between its 1st and 99th percentiles. The Laplacian's neighbours are `step` pixels apart
    /// (about one photo pixel in an enlarged strip, whose grain the enlargement has spread). Robust against
    /// the lettering's edges, which cover well under half of a strip; about 0 for a clean strip.
    static func grain(_ image: GrayImage, step: Int) -> Double {
        let w = image.width, h = image.height, s = max(1, step)
        guard w > 2 * s, h > 2 * s else { return 0 }
        var magnitudes = [Int](repeating: 0, count: 16 * 256)
        var values = GrayHistogram()
        var samples = 0
        image.pixels.withUnsafeBufferPointer { p in
            var y = s
            while y < h - s {
                let up = (y - s) * w, mid = y * w, down = (y + s) * w
                var x = s
                while x < w - s {
                    let corners = Int(p[up + x - s]) + Int(p[up + x + s]) + Int(p[down + x - s]) + Int(p[down + x + s])
                    let sides = Int(p[up + x]) + Int(p[down + x]) + Int(p[mid + x - s]) + Int(p[mid + x + s])
                    magnitudes[abs(corners - 2 * sides + 4 * Int(p[mid + x]))] += 1
                    values.add(p[mid + x])
                    samples += 1
                    x += s
                }
                y += s
            }
        }
        guard samples > 0 else { return 0 }
        let contrast = Double(max(1, values.percentile(0.99) - values.percentile(0.01)))
        let half = Double(samples) / 2
        var seen = 0
        for (magnitude, count) in magnitudes.enumerated() where count > 0 {
            if Double(seen + count) >= half {
                let low = max(0, Double(magnitude) - 0.5), width = magnitude == 0 ? 0.5 : 1
                return (low + width * (half - Double(seen)) / Double(count)) / (0.6745 * 6) / contrast
            }
            seen += count
        }
        return 0
    }
}
