import ImageKit

/// An RGB image as interleaved `Float` samples (0…255), the engine's working representation.
struct WorkImage: Sendable {
    let width: Int
    let height: Int
    /// `width * height * 3` samples, R G B per pixel, rows top to bottom.
    var data: [Float]

    init(width: Int, height: Int, data: [Float]) {
        self.width = width
        self.height = height
        self.data = data
    }

    /// Converts a pixel buffer, shrinking it by an integer box factor when its long side is at
    /// least twice `targetLongSide` (images from the JPEG path are already DCT-scaled).
    init(_ buffer: PixelBuffer, targetLongSide: Int) {
        let factor = max(1, buffer.longSide / max(1, targetLongSide))
        let w = max(1, buffer.width / factor), h = max(1, buffer.height / factor)
        var out = [Float](repeating: 0, count: w * h * 3)
        let inv = 1 / Float(factor * factor)
        buffer.pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    for x in 0..<w {
                        var r: Float = 0, g: Float = 0, b: Float = 0
                        for dy in 0..<factor {
                            let row = (y * factor + dy) * buffer.width
                            for dx in 0..<factor {
                                let i = (row + x * factor + dx) * 3
                                r += Float(src[i]); g += Float(src[i + 1]); b += Float(src[i + 2])
                            }
                        }
                        let o = (y * w + x) * 3
                        dst[o] = r * inv; dst[o + 1] = g * inv; dst[o + 2] = b * inv
                    }
                }
            }
        }
        self.init(width: w, height: h, data: out)
    }

    /// 3×3 box blur of every channel with reflected edges.
    func boxBlurred3() -> WorkImage {
        let w = width, h = height
        var tmp = [Float](repeating: 0, count: data.count)
        var out = [Float](repeating: 0, count: data.count)
        data.withUnsafeBufferPointer { src in
            tmp.withUnsafeMutableBufferPointer { t in
                for y in 0..<h {
                    for x in 0..<w {
                        let xl = Signal.reflect(x - 1, w), xr = Signal.reflect(x + 1, w)
                        for c in 0..<3 {
                            let base = y * w
                            t[(base + x) * 3 + c] = (src[(base + xl) * 3 + c] + src[(base + x) * 3 + c] + src[(base + xr) * 3 + c]) / 3
                        }
                    }
                }
            }
        }
        tmp.withUnsafeBufferPointer { t in
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<h {
                    let yu = Signal.reflect(y - 1, h), yd = Signal.reflect(y + 1, h)
                    for i in 0..<(w * 3) {
                        o[y * w * 3 + i] = (t[yu * w * 3 + i] + t[y * w * 3 + i] + t[yd * w * 3 + i]) / 3
                    }
                }
            }
        }
        return WorkImage(width: w, height: h, data: out)
    }

    /// Mean of the three channels per pixel.
    func channelMean() -> [Float] {
        var out = [Float](repeating: 0, count: width * height)
        data.withUnsafeBufferPointer { src in
            for i in 0..<(width * height) { out[i] = (src[i * 3] + src[i * 3 + 1] + src[i * 3 + 2]) / 3 }
        }
        return out
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
