package import ImageKit

/// Why an input file could not be prepared for upload; each case has its own exit code.
package enum PrepareError: Error, Sendable, Equatable, CustomStringConvertible {
    case notFound
    case isDirectory
    /// Opening or reading failed: no permission, an I/O error, not a file one can read.
    case unreadable(String)
    case empty
    /// The file is an image, but not a JPEG.
    case unsupportedFormat(ImageFormat)
    /// The file is not an image at all.
    case notAnImage
    /// libjpeg cannot decode it: corrupt markers or entropy data, bogus header fields; or decoding it would
    /// cost more than any photo does (a decode bomb: too many scans, too large a coefficient buffer, too long).
    case corrupt(String)
    /// The file ends before the JPEG does.
    case truncated(String)
    /// The header declares more pixels than bookscan will decode.
    case tooLarge(width: Int, height: Int, limit: Int)
    /// The file was deleted, replaced or changed while it was being read: what was read is not the photo.
    case vanished(String)
    /// Encoding the prepared image failed.
    case encodeFailed(String)

    package var description: String {
        switch self {
        case .notFound: "no such file"
        case .isDirectory: "is a directory, not an image (use `bookscan batch DIR` for folders)"
        case .unreadable(let why): "cannot be read (\(why))"
        case .empty: "is empty (0 bytes)"
        case .unsupportedFormat(let format):
            "is a \(format.displayName) image; bookscan reads JPEG only. Convert it first, e.g. `convert IN OUT.jpg`, or export as JPEG"
        case .notAnImage: "is not an image (it does not start with a JPEG signature)"
        case .corrupt(let message): "is a corrupt JPEG: its data is damaged (\(message))"
        case .truncated(let message): "is truncated: the file ends before the JPEG does (\(message)); copy it again"
        case .tooLarge(let w, let h, let limit): "is \(w)×\(h) pixels, over the limit of \(limit) pixels"
        case .vanished(let why): "vanished (\(why)); nothing was uploaded"
        case .encodeFailed(let message): "could not be re-encoded (\(message))"
        }
    }
}
