import CJPEGShim

/// Encodes pixels to a JPEG with libjpeg; the output carries no metadata at all (no EXIF, no GPS).
package enum JPEGEncoder {
    /// Encodes at `quality` 1…100: baseline, or `progressive` with libjpeg's standard progression (what
    /// `cjpeg -progressive` writes: 10 scans).
    package static func encode(_ image: PixelBuffer, quality: Int = 85, progressive: Bool = false) throws(ImageError) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>? = nil
        var length: UInt = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = image.pixels.withUnsafeBufferPointer { buffer in
            bs_jpeg_encode(
                buffer.baseAddress, Int32(image.width), Int32(image.height), Int32(min(100, max(1, quality))), progressive ? 1 : 0,
                &output, &length, &message, message.count)
        }
        guard status == 0, let output else { throw .encodeFailed(cString(message)) }
        defer { bs_jpeg_free_buffer(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }
}
