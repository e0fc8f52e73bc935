import BookscanBase
import Foundation
import ImageKit

/// A photo made ready for upload: upright, within the server's limits, re-encoded without metadata.
public struct PreparedImage: Sendable {
    /// The JPEG to upload (baseline, JFIF only: no EXIF, no GPS).
    public var jpeg: [UInt8]
    public var width: Int
    public var height: Int
    /// Size of the original as a viewer shows it (after EXIF orientation).
    public var originalWidth: Int
    public var originalHeight: Int
    public var orientation: EXIFOrientation
    /// Size of the file on disk.
    public var originalBytes: Int
    public var milliseconds: Double
}

/// Prepares photos with libjpeg: detects the format by magic bytes, decodes with DCT scaling
/// straight to the size needed, applies EXIF orientation, fits the long side, re-encodes.
public struct ImagePreparer: Sendable {
    /// Long side to fit when the server recommends none.
    public static let defaultLongSide = 1920
    /// Largest source image (width × height) decoded at all unless told otherwise.
    public static let defaultMaxSourcePixels = 250_000_000
    /// JPEG quality of the upload unless told otherwise.
    public static let defaultQuality = 85

    /// Long side to fit (the server's recommendation, `defaultLongSide` without one); never upscales.
    public var longSide: Int
    /// Largest source image (width × height) bookscan will decode at all.
    public var maxSourcePixels: Int
    /// JPEG quality of the upload.
    public var quality: Int

    public init(longSide: Int = defaultLongSide, maxSourcePixels: Int = defaultMaxSourcePixels, quality: Int = defaultQuality) {
        self.longSide = max(16, longSide)
        self.maxSourcePixels = maxSourcePixels
        self.quality = quality
    }

    /// Reads and prepares the file at `path`.
    public func prepare(path: String) throws(PrepareError) -> PreparedImage {
        let bytes = try InputFile.read(path)
        return try prepare(bytes: bytes)
    }

    /// Prepares JPEG bytes already in memory.
    public func prepare(bytes: [UInt8]) throws(PrepareError) -> PreparedImage {
        let clock = ContinuousClock()
        let started = clock.now
        guard !bytes.isEmpty else { throw .empty }
        switch ImageFormat.detect(bytes) {
        case .jpeg: break
        case .some(let format): throw .unsupportedFormat(format)
        case .none: throw .notAnImage
        }
        do {
            let header = try JPEGDecoder.readHeader(bytes)
            guard header.width * header.height <= maxSourcePixels else {
                throw PrepareError.tooLarge(width: header.width, height: header.height, limit: maxSourcePixels)
            }
            let orientation = EXIFOrientation.read(fromJPEG: bytes)
            let denominator = JPEGDecoder.scaleDenominator(sourceLongSide: max(header.width, header.height), minimumLongSide: longSide)
            let decoded = try JPEGDecoder.decode(bytes, scaleDenominator: denominator, maxPixels: maxSourcePixels, strict: true)
            let upright = decoded.image.applying(orientation).fitted(longSide: longSide)
            let jpeg = try JPEGEncoder.encode(upright, quality: quality)
            let original = orientation.swapsDimensions ? (header.height, header.width) : (header.width, header.height)
            let elapsed = clock.now - started
            return PreparedImage(
                jpeg: jpeg, width: upright.width, height: upright.height, originalWidth: original.0, originalHeight: original.1,
                orientation: orientation, originalBytes: bytes.count,
                milliseconds: elapsed.inMilliseconds)
        } catch let error as PrepareError {
            throw error
        } catch let error as ImageError {
            switch error {
            case .empty: throw .empty
            case .unsupportedFormat(let format): throw .unsupportedFormat(format)
            case .notAnImage: throw .notAnImage
            case .corrupt(let message), .corruptData(let message): throw .corrupt(message)
            case .truncated(let message): throw .truncated(message)
            case .tooManyPixels(let w, let h, let limit): throw .tooLarge(width: w, height: h, limit: limit)
            case .encodeFailed(let message): throw .encodeFailed(message)
            }
        } catch {
            throw .corrupt("\(error)")
        }
    }
}
