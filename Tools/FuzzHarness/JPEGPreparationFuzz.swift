import ImageKit
import ImagePreparation

/// One fuzz input through every path that reads untrusted JPEG bytes: format sniffing, the EXIF
/// reader, the client's `ImagePreparer`, the service's header check and scaled decode, and the
/// engine's decode. Limits are small so a huge declared size is refused before any pixel memory.
package enum JPEGPreparationFuzz {
    /// Largest source image decoded while fuzzing (1 MP): larger headers must be refused as too large.
    package static let maxPixels = 1 << 20
    /// Long side of the prepared image (small, so every decode is DCT-scaled and fast).
    package static let longSide = 64
    static let preparer = ImagePreparer(longSide: longSide, maxSourcePixels: maxPixels, quality: 75)

    /// Runs `bytes` through every JPEG path; the outcome is the client preparation's, unless an
    /// invariant broke anywhere.
    package static func run(_ bytes: [UInt8]) -> FuzzOutcome {
        let format = ImageFormat.detect(bytes)
        if bytes.count > 1, ImageFormat.detect(bytes[1...]) != ImageFormat.detect(Array(bytes[1...])) {
            return .violation("format sniffing differs between a slice and an array of the same bytes")
        }
        let orientation = EXIFOrientation.read(fromJPEG: bytes)
        if let broken = serverPaths(bytes) { return .violation(broken) }
        do {
            let prepared = try preparer.prepare(bytes: bytes)
            if format != .jpeg { return .violation("prepared bytes whose format is \(String(describing: format))") }
            return check(prepared, orientation: orientation)
        } catch {
            return .rejected(error.description)
        }
    }

    /// The checks a prepared image must pass: fitted, within limits, re-decodable, no metadata.
    static func check(_ prepared: PreparedImage, orientation: EXIFOrientation) -> FuzzOutcome {
        guard prepared.width > 0, prepared.height > 0, max(prepared.width, prepared.height) <= longSide else {
            return .violation("prepared size \(prepared.width)×\(prepared.height) does not fit \(longSide)")
        }
        guard prepared.originalWidth * prepared.originalHeight <= maxPixels else {
            return .violation("prepared a \(prepared.originalWidth)×\(prepared.originalHeight) source over the limit")
        }
        guard prepared.orientation == orientation else {
            return .violation("orientation \(prepared.orientation) differs from the EXIF reader's \(orientation)")
        }
        // A copied original decodes to its stored pixels and carries its orientation (and nothing else);
        // a re-encode is upright and carries no EXIF at all.
        let carried = EXIFOrientation.read(fromJPEG: prepared.jpeg)
        let turned = !prepared.reencoded && orientation.swapsDimensions
        do {
            let again = try JPEGDecoder.decode(prepared.jpeg, strict: true)
            let expected = turned ? (prepared.height, prepared.width) : (prepared.width, prepared.height)
            guard again.image.width == expected.0, again.image.height == expected.1 else {
                return .violation("the prepared JPEG decodes to \(again.image.width)×\(again.image.height)")
            }
        } catch {
            return .violation("the prepared JPEG does not decode: \(error)")
        }
        guard carried == (prepared.reencoded ? .up : orientation) else { return .violation("the prepared JPEG carries orientation \(carried)") }
        guard JPEGMetadataStripper.stripped(prepared.jpeg, keeping: carried) == prepared.jpeg else {
            return .violation("the prepared JPEG carries metadata")
        }
        return .accepted("\(prepared.originalWidth)×\(prepared.originalHeight) \(orientation) → \(prepared.width)×\(prepared.height)")
    }

    /// The service's upload check (header, then a 1/8 decode) and the engine's scaled decode.
    /// Both may refuse with an `ImageError`; a success must respect the pixel limit.
    static func serverPaths(_ bytes: [UInt8]) -> String? {
        guard let header = try? JPEGDecoder.readHeader(bytes) else { return nil }
        guard header.width > 0, header.height > 0 else { return "header with an empty size \(header.width)×\(header.height)" }
        for engine in [false, true] {
            let decoded: DecodedJPEG
            do {
                decoded =
                    engine
                    ? try JPEGDecoder.decode(bytes, minimumLongSide: longSide, maxPixels: maxPixels)
                    : try JPEGDecoder.decode(bytes, scaleDenominator: 8, maxPixels: maxPixels)
            } catch {
                continue
            }
            if decoded.sourceWidth * decoded.sourceHeight > maxPixels {
                return "decoded a \(decoded.sourceWidth)×\(decoded.sourceHeight) image over the limit"
            }
            _ = decoded.image.applying(.rightMirrored).fitted(longSide: longSide / 2)
        }
        return nil
    }
}
