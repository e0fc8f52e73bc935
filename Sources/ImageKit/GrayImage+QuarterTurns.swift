extension GrayImage {
    /// The image turned a quarter turn counter-clockwise (its top edge becomes the left edge): lettering that
    /// ran top to bottom reads left to right. Pixel (u, v) of the result is pixel (width − 1 − v, u) of this one.
    package func turnedCounterClockwise() -> GrayImage {
        let w = width, h = height
        var out = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for v in 0..<w {
                    let x = w - 1 - v
                    for u in 0..<h { target[v * h + u] = source[u * w + x] }
                }
            }
        }
        return GrayImage(turned: out, width: h, height: w)
    }

    /// The image turned a quarter turn clockwise (its top edge becomes the right edge): lettering that ran
    /// bottom to top reads left to right. Pixel (u, v) of the result is pixel (v, height − 1 − u) of this one.
    package func turnedClockwise() -> GrayImage {
        let w = width, h = height
        var out = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for v in 0..<w {
                    for u in 0..<h { target[v * h + u] = source[(h - 1 - u) * w + v] }
                }
            }
        }
        return GrayImage(turned: out, width: h, height: w)
    }

    /// An image of pixels a turn produced (their count is always `width * height`).
    private init(turned pixels: [UInt8], width: Int, height: Int) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }
}
