/// An 8-bit RGB image in memory, row-major, three bytes per pixel.
package struct PixelBuffer: Sendable, Equatable {
    package let width: Int
    package let height: Int
    /// `width * height * 3` bytes: R, G, B for each pixel, rows top to bottom.
    package var pixels: [UInt8]

    /// Makes a buffer from existing pixels; nil when the byte count does not match the size.
    package init?(width: Int, height: Int, pixels: [UInt8]) {
        guard width > 0, height > 0, pixels.count == width * height * 3 else { return nil }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Makes a buffer filled with one colour.
    package init(width: Int, height: Int, fill: (r: UInt8, g: UInt8, b: UInt8) = (0, 0, 0)) {
        self.width = max(1, width)
        self.height = max(1, height)
        var bytes = [UInt8](repeating: 0, count: self.width * self.height * 3)
        if fill != (0, 0, 0) {
            for i in stride(from: 0, to: bytes.count, by: 3) {
                bytes[i] = fill.r
                bytes[i + 1] = fill.g
                bytes[i + 2] = fill.b
            }
        }
        self.pixels = bytes
    }

    /// The longer of width and height.
    package var longSide: Int { max(width, height) }

    /// The colour at (x, y); the caller keeps x and y inside the image.
    @inlinable
    package func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let i = (y * width + x) * 3
        return (pixels[i], pixels[i + 1], pixels[i + 2])
    }

    /// Sets the colour at (x, y) when it lies inside the image.
    @inlinable
    package mutating func setPixel(x: Int, y: Int, _ c: (r: UInt8, g: UInt8, b: UInt8)) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        let i = (y * width + x) * 3
        pixels[i] = c.r
        pixels[i + 1] = c.g
        pixels[i + 2] = c.b
    }

    /// Luma (BT.601) of every pixel, row-major, as Float in 0…255.
    package func luminance() -> [Float] {
        var out = [Float](repeating: 0, count: width * height)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for i in 0..<(width * height) {
                    let r = Float(src[i * 3]), g = Float(src[i * 3 + 1]), b = Float(src[i * 3 + 2])
                    dst[i] = 0.299 * r + 0.587 * g + 0.114 * b
                }
            }
        }
        return out
    }
}
