/// Why an image could not be read, prepared or written.
public enum ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input has no bytes.
    case empty
    /// The bytes are an image format other than JPEG.
    case unsupportedFormat(ImageFormat)
    /// The bytes are not any image format we know.
    case notAnImage
    /// libjpeg could not decode the data (truncated, corrupt markers, …); carries its message.
    case corrupt(String)
    /// libjpeg decoded the data only with corrupt-data warnings, e.g. the file ends early (strict decoding).
    case truncatedOrCorrupt(String)
    /// The header declares more pixels than allowed; refused before any pixel memory is allocated.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// libjpeg could not encode.
    case encodeFailed(String)

    public var description: String {
        switch self {
        case .empty: "the file is empty (0 bytes)"
        case .unsupportedFormat(let format):
            "it is a \(format.displayName) image, not a JPEG; convert it to JPEG first (for example: convert IN OUT.jpg)"
        case .notAnImage: "it is not an image (no JPEG signature at the start of the file)"
        case .corrupt(let message): "the JPEG data is corrupt (\(message))"
        case .truncatedOrCorrupt(let message): "the JPEG is truncated or damaged (\(message))"
        case .tooManyPixels(let w, let h, let limit): "the image is \(w)×\(h) pixels, over the limit of \(limit) pixels"
        case .encodeFailed(let message): "JPEG encoding failed (\(message))"
        }
    }
}
