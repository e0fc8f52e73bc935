import Foundation

/// A shelf row resampled so that the bottom line is the last strip line and book edges are vertical.
struct RowStrip: Sendable {
    let width: Int
    let height: Int
    /// `height * width * 3` samples; strip line 0 is the top, line `height - 1` the bottom line.
    var data: [Float]

    /// Bilinearly resamples `image` along `row`'s bottom line and leaning verticals.
    init(image: WorkImage, row: RowGeometry) {
        let w = image.width, hs = max(1, row.height)
        width = w
        height = hs
        var out = [Float](repeating: 0, count: w * hs * 3)
        let tans = (0..<w).map { u in tan((row.angle0 + row.angleSlope * (Double(u) - Double(w) / 2)) * .pi / 180) }
        let iw = image.width, ih = image.height
        image.data.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { dst in
                for v in 0..<hs {
                    let hh = Double(hs - 1 - v)
                    for u in 0..<w {
                        let x = min(Double(iw - 1), max(0, Double(u) + hh * tans[u]))
                        let y = min(Double(ih - 1), max(0, row.b0 + row.b1 * Double(u) - hh))
                        let x0 = Int(x), y0 = Int(y)
                        let x1 = min(iw - 1, x0 + 1), y1 = min(ih - 1, y0 + 1)
                        let fx = Float(x - Double(x0)), fy = Float(y - Double(y0))
                        let o = (v * w + u) * 3
                        for c in 0..<3 {
                            let a = p[(y0 * iw + x0) * 3 + c], b = p[(y0 * iw + x1) * 3 + c]
                            let d = p[(y1 * iw + x0) * 3 + c], e = p[(y1 * iw + x1) * 3 + c]
                            dst[o + c] = (a * (1 - fx) + b * fx) * (1 - fy) + (d * (1 - fx) + e * fx) * fy
                        }
                    }
                }
            }
        }
        data = out
    }

    init(width: Int, height: Int, data: [Float]) {
        self.width = width
        self.height = height
        self.data = data
    }

    /// The strip averaged over 5 lines vertically (reflected edges): smooths noise, keeps vertical edges.
    func verticallySmoothed() -> RowStrip {
        let w = width, h = height
        var out = [Float](repeating: 0, count: data.count)
        data.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for v in 0..<h {
                    let rows = (-2...2).map { Signal.reflect(v + $0, h) }
                    for i in 0..<(w * 3) {
                        var s: Float = 0
                        for r in rows { s += src[r * w * 3 + i] }
                        dst[v * w * 3 + i] = s / 5
                    }
                }
            }
        }
        return RowStrip(width: w, height: h, data: out)
    }
}
