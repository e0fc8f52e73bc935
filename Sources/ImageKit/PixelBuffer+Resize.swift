extension PixelBuffer {
    /// The size that fits `longSide` while keeping the aspect ratio; never larger than the image.
    public func sizeFitting(longSide limit: Int) -> (width: Int, height: Int) {
        guard limit > 0, longSide > limit else { return (width, height) }
        let scale = Double(limit) / Double(longSide)
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    /// Resampled to the given size with a separable triangle filter whose support widens with the
    /// reduction, so downscaling averages every source pixel (no aliasing).
    public func resized(width newWidth: Int, height newHeight: Int) -> PixelBuffer {
        let newWidth = max(1, newWidth), newHeight = max(1, newHeight)
        if newWidth == width && newHeight == height { return self }
        let xTaps = Self.taps(source: width, target: newWidth)
        let yTaps = Self.taps(source: height, target: newHeight)
        var horizontal = [Float](repeating: 0, count: newWidth * height * 3)
        pixels.withUnsafeBufferPointer { src in
            horizontal.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    let row = y * width * 3
                    for x in 0..<newWidth {
                        var r: Float = 0, g: Float = 0, b: Float = 0
                        for (index, weight) in xTaps[x] {
                            let s = row + index * 3
                            r += Float(src[s]) * weight
                            g += Float(src[s + 1]) * weight
                            b += Float(src[s + 2]) * weight
                        }
                        let d = (y * newWidth + x) * 3
                        dst[d] = r
                        dst[d + 1] = g
                        dst[d + 2] = b
                    }
                }
            }
        }
        var out = [UInt8](repeating: 0, count: newWidth * newHeight * 3)
        horizontal.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<newHeight {
                    for x in 0..<newWidth {
                        var r: Float = 0, g: Float = 0, b: Float = 0
                        for (index, weight) in yTaps[y] {
                            let s = (index * newWidth + x) * 3
                            r += src[s] * weight
                            g += src[s + 1] * weight
                            b += src[s + 2] * weight
                        }
                        let d = (y * newWidth + x) * 3
                        dst[d] = Self.clamp(r)
                        dst[d + 1] = Self.clamp(g)
                        dst[d + 2] = Self.clamp(b)
                    }
                }
            }
        }
        return PixelBuffer(width: newWidth, height: newHeight, pixels: out) ?? self
    }

    /// Downscaled so the long side is at most `longSide`; returned unchanged when already small enough.
    public func fitted(longSide limit: Int) -> PixelBuffer {
        let size = sizeFitting(longSide: limit)
        return resized(width: size.width, height: size.height)
    }

    private static func clamp(_ v: Float) -> UInt8 { UInt8(max(0, min(255, v.rounded()))) }

    /// For each target coordinate, the source indices and normalised weights of a triangle filter.
    private static func taps(source: Int, target: Int) -> [[(Int, Float)]] {
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
