extension PixelBuffer {
    /// The size that fits `longSide` while keeping the aspect ratio; never larger than the image.
    package func sizeFitting(longSide limit: Int) -> (width: Int, height: Int) {
        guard limit > 0, longSide > limit else { return (width, height) }
        let scale = Double(limit) / Double(longSide)
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    /// Resampled to the given size with a separable triangle filter whose support widens with the
    /// reduction, so downscaling averages every source pixel (no aliasing). The horizontal pass is kept
    /// only for the source rows the current output row needs (a ring of rows, each computed once), not
    /// for the whole image: a 27 MP photo fitted to 4096 px held a 223 MB `Float` intermediate.
    package func resized(width newWidth: Int, height newHeight: Int) -> PixelBuffer {
        let newWidth = max(1, newWidth), newHeight = max(1, newHeight)
        if newWidth == width && newHeight == height { return self }
        let xTaps = Self.taps(source: width, target: newWidth)
        let yTaps = Self.taps(source: height, target: newHeight)
        // Source rows each output row reads; the triangle's window only moves down, so a ring as tall as
        // the widest window holds every row still needed (all rows if the windows ever went back).
        let spans = yTaps.map { taps in (low: taps.map(\.0).min() ?? 0, high: taps.map(\.0).max() ?? 0) }
        let forward = zip(spans, spans.dropFirst()).allSatisfy { $0.low <= $1.low && $0.high <= $1.high }
        let ring = forward ? min(height, spans.map { $0.high - $0.low + 1 }.max() ?? 1) : height
        let rowLength = newWidth * 3
        var horizontal = [Float](repeating: 0, count: ring * rowLength)
        var out = [UInt8](repeating: 0, count: newWidth * newHeight * 3)
        var nextRow = 0  // the first source row not filtered yet
        pixels.withUnsafeBufferPointer { src in
            horizontal.withUnsafeMutableBufferPointer { rows in
                out.withUnsafeMutableBufferPointer { dst in
                    for y in 0..<newHeight {
                        while nextRow <= spans[y].high {
                            let row = nextRow * width * 3, slot = (nextRow % ring) * rowLength
                            for x in 0..<newWidth {
                                var r: Float = 0, g: Float = 0, b: Float = 0
                                for (index, weight) in xTaps[x] {
                                    let s = row + index * 3
                                    r += Float(src[s]) * weight
                                    g += Float(src[s + 1]) * weight
                                    b += Float(src[s + 2]) * weight
                                }
                                rows[slot + x * 3] = r
                                rows[slot + x * 3 + 1] = g
                                rows[slot + x * 3 + 2] = b
                            }
                            nextRow += 1
                        }
                        for x in 0..<newWidth {
                            var r: Float = 0, g: Float = 0, b: Float = 0
                            for (index, weight) in yTaps[y] {
                                let s = (index % ring) * rowLength + x * 3
                                r += rows[s] * weight
                                g += rows[s + 1] * weight
                                b += rows[s + 2] * weight
                            }
                            let d = (y * newWidth + x) * 3
                            dst[d] = Self.clamp(r)
                            dst[d + 1] = Self.clamp(g)
                            dst[d + 2] = Self.clamp(b)
                        }
                    }
                }
            }
        }
        return PixelBuffer(width: newWidth, height: newHeight, pixels: out) ?? self
    }

    /// Downscaled so the long side is at most `longSide`; returned unchanged when already small enough.
    package func fitted(longSide limit: Int) -> PixelBuffer {
        let size = sizeFitting(longSide: limit)
        return resized(width: size.width, height: size.height)
    }

    static func clamp(_ v: Float) -> UInt8 { UInt8(max(0, min(255, v.rounded()))) }

    /// For each target coordinate, the source indices and normalised weights of a triangle filter.
    static func taps(source: Int, target: Int) -> [[(Int, Float)]] {
        let scale = Double(source) / Double(target)
        let support = max(1.0, scale)
        return (0..<target).map { t in
            let center = (Double(t) + 0.5) * scale
            let lo = max(0, Int((center - support).rounded(.down)))
            let hi = min(source - 1, Int((center + support).rounded(.up)))
            var taps: [(Int, Float)] = []
            var total = 0.0
            for s in lo...hi {
                let w = max(0, 1 - abs((Double(s) + 0.5 - center) / support))
                if w > 0 {
                    taps.append((s, Float(w)))
                    total += w
                }
            }
            if taps.isEmpty { return [(min(source - 1, max(0, Int(center))), 1)] }
            return taps.map { ($0.0, Float(Double($0.1) / total)) }
        }
    }
}
