import BookscanBase
import Foundation
package import ImageKit

/// A photo made ready for upload: within the server's limits, without metadata, upright or saying how to turn it.
package struct PreparedImage: Sendable {
    /// The JPEG to upload: no camera EXIF, no GPS, no XMP or comments. Either the original's compressed
    /// data copied as it is (`reencoded` false; a non-upright EXIF orientation kept as its only tag) or
    /// a baseline JFIF re-encode of the upright, resized pixels.
    package var jpeg: [UInt8]
    /// Whether the pixels were decoded and encoded again (resized, or the original could not be copied).
    package var reencoded: Bool
    package var width: Int
    package var height: Int
    /// Size of the original as a viewer shows it (after EXIF orientation).
    package var originalWidth: Int
    package var originalHeight: Int
    package var orientation: EXIFOrientation
    /// Size of the file on disk.
    package var originalBytes: Int
    package var milliseconds: Double
}

/// Prepares photos with libjpeg: detects the format by magic bytes; a photo already within the long
/// side and the byte limit is copied without its metadata (no decode, no generation loss: the service
/// reads titles from exactly the pixels the camera stored); a larger one is decoded with DCT scaling
/// straight to the size needed, turned upright, fitted to the long side and re-encoded.
package struct ImagePreparer: Sendable {
    /// Long side to fit when the server recommends none.
    package static let defaultLongSide = 1920
    /// Largest source image (width × height) decoded at all unless told otherwise.
    package static let defaultMaxSourcePixels = 250_000_000
    /// JPEG quality of the upload unless told otherwise.
    package static let defaultQuality = 85

    /// Long side to fit (the server's recommendation, `defaultLongSide` without one); never upscales.
    package var longSide: Int
    /// Largest source image (width × height) bookscan will decode at all.
    package var maxSourcePixels: Int
    /// JPEG quality of the upload.
    package var quality: Int
    /// Largest upload the server accepts: a copied original above it is re-encoded instead.
    package var maxBytes: Int

    package init(
        longSide: Int = defaultLongSide, maxSourcePixels: Int = defaultMaxSourcePixels, quality: Int = defaultQuality, maxBytes: Int = .max
    ) {
        self.longSide = max(16, longSide)
        self.maxSourcePixels = maxSourcePixels
        self.quality = quality
        self.maxBytes = max(0, maxBytes)
    }

    /// Reads and prepares the file at `path`.
    package func prepare(path: String) throws(PrepareError) -> PreparedImage {
        let bytes = try InputFile.read(path)
        return try prepare(bytes: bytes)
    }

    /// Prepares JPEG bytes already in memory.
    package func prepare(bytes: [UInt8]) throws(PrepareError) -> PreparedImage {
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
            let original = orientation.swapsDimensions ? (header.height, header.width) : (header.width, header.height)
            if max(header.width, header.height) <= longSide, let copied = Self.copiedWithoutMetadata(bytes, orientation: orientation),
                copied.count <= maxBytes
            {
                return PreparedImage(
                    jpeg: copied, reencoded: false, width: original.0, height: original.1, originalWidth: original.0,
                    originalHeight: original.1, orientation: orientation, originalBytes: bytes.count,
                    milliseconds: (clock.now - started).inMilliseconds)
            }
            let denominator = JPEGDecoder.scaleDenominator(sourceLongSide: max(header.width, header.height), minimumLongSide: longSide)
            let decoded = try JPEGDecoder.decode(bytes, scaleDenominator: denominator, maxPixels: maxSourcePixels, strict: true)
            let upright = decoded.image.applying(orientation).fitted(longSide: longSide)
            let jpeg = try JPEGEncoder.encode(upright, quality: quality)
            let elapsed = clock.now - started
            return PreparedImage(
                jpeg: jpeg, reencoded: true, width: upright.width, height: upright.height, originalWidth: original.0, originalHeight: original.1,
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
            // A decode bomb is refused as undecodable (exit code 6), saying which limit it went over.
            case .overLimit(let limit): throw .corrupt(limit.description)
            case .encodeFailed(let message): throw .encodeFailed(message)
            }
        } catch {
            throw .corrupt("\(error)")
        }
    }

    /// The original's compressed data without metadata, if it is whole: the copy must decode without a
    /// single libjpeg warning (checked at 1/8 scale, which still reads every coefficient). Nil sends the
    /// photo down the decode path, whose strict decode names what is wrong with it.
    static func copiedWithoutMetadata(_ bytes: [UInt8], orientation: EXIFOrientation) -> [UInt8]? {
        guard let copy = JPEGMetadataStripper.stripped(bytes, keeping: orientation),
            (try? JPEGDecoder.decode(copy, scaleDenominator: 8, strict: true)) != nil
        else { return nil }
        return copy
    }
}
