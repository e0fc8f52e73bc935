/// Why an image could not be read, prepared or written.
package enum ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input has no bytes.
    case empty
    /// The bytes are an image format other than JPEG.
    case unsupportedFormat(ImageFormat)
    /// The bytes are not any image format we know.
    case notAnImage
    /// libjpeg could not decode the data (corrupt markers, bogus header fields, …); carries its message.
    case corrupt(String)
    /// libjpeg decoded the data only with corrupt-data warnings: bad entropy data, stray markers (strict decoding).
    case corruptData(String)
    /// The data ends before the image does (libjpeg ran out of bytes before anything else went wrong).
    case truncated(String)
    /// The header declares more pixels than allowed; refused before any pixel memory is allocated.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// Decoding would cost more than any photo does (a decode bomb): too many scans, too large a
    /// coefficient buffer, or too long; refused before the buffer is allocated, or stopped within a row.
    case overLimit(JPEGLimitExceeded)
    /// libjpeg could not encode.
    case encodeFailed(String)

    package var description: String {
        switch self {
        case .empty: "the file is empty (0 bytes)"
        case .unsupportedFormat(let format):
            "it is a \(format.displayName) image, not a JPEG; convert it to JPEG first (for example: convert IN OUT.jpg)"
        case .notAnImage: "it is not an image (no JPEG signature at the start of the file)"
        case .corrupt(let message): "the JPEG data is corrupt (\(message))"
        case .corruptData(let message): "the JPEG data is damaged (\(message))"
        case .truncated(let message): "the JPEG is truncated: the file ends before the image does (\(message))"
        case .tooManyPixels(let w, let h, let limit): "the image is \(w)×\(h) pixels, over the limit of \(limit) pixels"
        case .overLimit(let limit): "the JPEG would cost more to decode than a photo does: \(limit)"
        case .encodeFailed(let message): "JPEG encoding failed (\(message))"
        }
    }
}
