import ImageKit

/// An RGB image as interleaved bytes, the engine's working representation (the DCT-scaled decode itself
/// on the JPEG path: no copy; a 1008×756 working image holds 2.3 MB where `Float` samples held 9.1 MB).
struct WorkImage: Sendable {
    let width: Int
    let height: Int
    /// `width * height * 3` samples, R G B per pixel, rows top to bottom.
    var pixels: [UInt8]

    init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Adopts a pixel buffer, shrinking it by an integer box factor (rounded mean) when its long side is
    /// at least twice `targetLongSide` (images from the JPEG path are already DCT-scaled and kept as they are).
    init(_ buffer: PixelBuffer, targetLongSide: Int) {
        let factor = max(1, buffer.longSide / max(1, targetLongSide))
        guard factor > 1 else {
            self.init(width: buffer.width, height: buffer.height, pixels: buffer.pixels)
            return
        }
        let w = max(1, buffer.width / factor), h = max(1, buffer.height / factor)
        var out = [UInt8](repeating: 0, count: w * h * 3)
        let n = factor * factor
        buffer.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    for x in 0..<w {
                        var r = 0, g = 0, b = 0
                        for dy in 0..<factor {
                            let row = (y * factor + dy) * buffer.width
                            for dx in 0..<factor {
                                let i = (row + x * factor + dx) * 3
                                r += Int(src[i]); g += Int(src[i + 1]); b += Int(src[i + 2])
                            }
                        }
                        let o = (y * w + x) * 3
                        dst[o] = UInt8((r + n / 2) / n); dst[o + 1] = UInt8((g + n / 2) / n); dst[o + 2] = UInt8((b + n / 2) / n)
                    }
                }
            }
        }
        self.init(width: w, height: h, pixels: out)
    }

    /// Gradients of the image after a 3×3 box blur of every channel (reflected edges), computed a few lines at
    /// a time so that the blurred image is never held whole: `gx` the horizontal and `gy` the vertical
    /// central-difference magnitudes summed over the channels (0 on the border columns / lines), `mean`
    /// the blurred channels' mean per pixel; each `width * height`.
    func blurredGradients() -> (gx: [Float], gy: [Float], mean: [Float]) {
        let w = width, h = height, line = w * 3
        var gx = [Float](repeating: 0, count: w * h)
        var gy = [Float](repeating: 0, count: w * h)
        var mean = [Float](repeating: 0, count: w * h)
        // Rings of three lines: horizontally blurred lines and fully blurred lines, line y in slot y % 3.
        var across = [Float](repeating: 0, count: 3 * line)
        var blurred = [Float](repeating: 0, count: 3 * line)
        pixels.withUnsafeBufferPointer { src in
            across.withUnsafeMutableBufferPointer { t in
                blurred.withUnsafeMutableBufferPointer { a in
                    gx.withUnsafeMutableBufferPointer { gxp in
                        gy.withUnsafeMutableBufferPointer { gyp in
                            mean.withUnsafeMutableBufferPointer { mp in
                                Self.blurredGradients(src, width: w, height: h, across: t, blurred: a, gx: gxp, gy: gyp, mean: mp)
                            }
                        }
                    }
                }
            }
        }
        return (gx, gy, mean)
    }

    /// The line-by-line work of `blurredGradients()` on the rings `across` and `blurred` (3 lines each).
    private static func blurredGradients(
        _ src: UnsafeBufferPointer<UInt8>, width w: Int, height h: Int, across t: UnsafeMutableBufferPointer<Float>,
        blurred a: UnsafeMutableBufferPointer<Float>, gx: UnsafeMutableBufferPointer<Float>, gy: UnsafeMutableBufferPointer<Float>,
        mean: UnsafeMutableBufferPointer<Float>
    ) {
        let line = w * 3
        func blurAcross(_ y: Int) {
            let base = y * w, slot = (y % 3) * line
            for x in 0..<w {
                let xl = Signal.reflect(x - 1, w), xr = Signal.reflect(x + 1, w)
                for c in 0..<3 {
                    t[slot + x * 3 + c] =
                        (Float(src[(base + xl) * 3 + c]) + Float(src[(base + x) * 3 + c]) + Float(src[(base + xr) * 3 + c])) / 3
                }
            }
        }
        func blurDown(_ y: Int) {
            let su = (Signal.reflect(y - 1, h) % 3) * line, sc = (y % 3) * line, sd = (Signal.reflect(y + 1, h) % 3) * line
            for i in 0..<line { a[sc + i] = (t[su + i] + t[sc + i] + t[sd + i]) / 3 }
        }
        func finish(_ y: Int) {
            let sc = (y % 3) * line
            for x in 0..<w {
                let i = sc + x * 3
                mean[y * w + x] = (a[i] + a[i + 1] + a[i + 2]) / 3
                if x > 0 && x < w - 1 {
                    gx[y * w + x] = abs(a[i + 3] - a[i - 3]) + abs(a[i + 4] - a[i - 2]) + abs(a[i + 5] - a[i - 1])
                }
            }
            if y > 0 && y < h - 1 {
                let su = ((y - 1) % 3) * line, sd = ((y + 1) % 3) * line
                for x in 0..<w {
                    let i = x * 3
                    gy[y * w + x] = abs(a[sd + i] - a[su + i]) + abs(a[sd + i + 1] - a[su + i + 1]) + abs(a[sd + i + 2] - a[su + i + 2])
                }
            }
        }
        blurAcross(0)
        if h > 1 { blurAcross(1) }
        blurDown(0)
        for y in 1..<(h + 1) {
            // Line y blurred down needs line y + 1 blurred across; line y - 1 is finished once line y is blurred down.
            if y < h {
                if y + 1 < h { blurAcross(y + 1) }
                blurDown(y)
            }
            finish(y - 1)
        }
    }
}


/// A single-channel `Float` plane.
struct Plane: Sendable {
    let width: Int
    let height: Int
    var data: [Float]

    /// Bilinear sample with coordinates clamped to the plane (scipy's "nearest" mode).
    @inline(__always)
    static func sample(_ p: UnsafeBufferPointer<Float>, _ w: Int, _ h: Int, _ x: Double, _ y: Double) -> Float {
        let cx = min(Double(w - 1), max(0, x)), cy = min(Double(h - 1), max(0, y))
        let x0 = Int(cx), y0 = Int(cy)
        let x1 = min(w - 1, x0 + 1), y1 = min(h - 1, y0 + 1)
        let fx = Float(cx - Double(x0)), fy = Float(cy - Double(y0))
        let a = p[y0 * w + x0], b = p[y0 * w + x1], c = p[y1 * w + x0], d = p[y1 * w + x1]
        return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
    }

    /// 3×3 box blur with reflected edges.
    func boxBlurred3() -> Plane {
        let w = width, h = height
        var tmp = [Float](repeating: 0, count: data.count)
        var out = [Float](repeating: 0, count: data.count)
        data.withUnsafeBufferPointer { src in
            for y in 0..<h {
                for x in 0..<w {
                    tmp[y * w + x] = (src[y * w + Signal.reflect(x - 1, w)] + src[y * w + x] + src[y * w + Signal.reflect(x + 1, w)]) / 3
                }
            }
        }
        tmp.withUnsafeBufferPointer { t in
            for y in 0..<h {
                let yu = Signal.reflect(y - 1, h), yd = Signal.reflect(y + 1, h)
                for x in 0..<w { out[y * w + x] = (t[yu * w + x] + t[y * w + x] + t[yd * w + x]) / 3 }
            }
        }
        return Plane(width: w, height: h, data: out)
    }
}
