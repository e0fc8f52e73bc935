/// An 8-bit single-channel image, row-major, one byte per pixel.
package struct GrayImage: Sendable, Equatable {
    package let width: Int
    package let height: Int
    /// `width * height` bytes, rows top to bottom.
    package var pixels: [UInt8]

    /// Makes an image from existing pixels; nil when the byte count does not match the size.
    package init?(width: Int, height: Int, pixels: [UInt8]) {
        guard width > 0, height > 0, pixels.count == width * height else { return nil }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Luma (BT.601) of an RGB buffer.
    package init(_ buffer: PixelBuffer) {
        width = buffer.width
        height = buffer.height
        pixels = buffer.luminance().map { UInt8(max(0, min(255, $0.rounded()))) }
    }
}

extension JPEGDecoder {
    /// Decodes straight to grayscale with DCT scale 1/`scaleDenominator` (1, 2, 4 or 8): a third of
    /// the memory of RGB, for readers that only need luma. `maxPixels` bounds the source size, `limits` the
    /// scans, the coefficient buffer and the time (`.overLimit`).
    package static func decodeGray(
        _ data: [UInt8], scaleDenominator: Int, maxPixels: Int = 0, limits: JPEGDecodeLimits = .standard
    ) throws(ImageError) -> GrayImage {
        let decoded = try decodePixels(
            data, scaleDenominator: scaleDenominator, maxPixels: maxPixels, strict: false, gray: true, limits: limits)
        guard let image = GrayImage(width: decoded.width, height: decoded.height, pixels: decoded.pixels) else {
            throw .corrupt("decoder returned an empty image")
        }
        return image
    }
}
