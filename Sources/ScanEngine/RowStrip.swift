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
        image.pixels.withUnsafeBufferPointer { p in
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
                            let a = Float(p[(y0 * iw + x0) * 3 + c]), b = Float(p[(y0 * iw + x1) * 3 + c])
                            let d = Float(p[(y1 * iw + x0) * 3 + c]), e = Float(p[(y1 * iw + x1) * 3 + c])
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

    /// Averages the strip over 5 lines vertically (reflected edges), in place: smooths noise, keeps vertical
    /// edges. Only the five unsmoothed lines around the current one are kept aside, not a second strip.
    mutating func smoothVertically() {
        let w = width, h = height, line = w * 3
        // Unsmoothed line r in slot r % 5; lines v - 2 ... v + 2 are there when line v is smoothed.
        var ring = [Float](repeating: 0, count: 5 * line)
        data.withUnsafeMutableBufferPointer { d in
            ring.withUnsafeMutableBufferPointer { keep in
                func save(_ r: Int) {
                    for i in 0..<line { keep[(r % 5) * line + i] = d[r * line + i] }
                }
                for r in 0..<min(h, 2) { save(r) }
                for v in 0..<h {
                    if v + 2 < h { save(v + 2) }
                    let slots = (-2...2).map { (Signal.reflect(v + $0, h) % 5) * line }
                    for i in 0..<line {
                        var s: Float = 0
                        for slot in slots { s += keep[slot + i] }
                        d[v * line + i] = s / 5
                    }
                }
            }
        }
    }
}

/// A row strip's colours as bytes (samples truncated to whole values), for the median colour of a spine.
struct StripColors: Sendable {
    let width: Int
    let height: Int
    /// `height * width * 3` bytes, R G B per strip pixel.
    let data: [UInt8]

    init(_ strip: borrowing RowStrip) {
        width = strip.width
        height = strip.height
        data = strip.data.map { UInt8(min(255, max(0, $0))) }
    }
}
