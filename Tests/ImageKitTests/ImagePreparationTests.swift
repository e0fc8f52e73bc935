import Foundation
import ImageKit
import ImagePreparation
import Testing

/// Every preparation error has its own case (and so its own exit code); good photos come out
/// upright, fitted and without metadata.
@Suite("Image preparation")
struct ImagePreparationTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../SampleImages").standardized

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bookscan-prep-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    func validJPEG(width: Int = 320, height: Int = 240) throws -> [UInt8] {
        var image = PixelBuffer(width: width, height: height, fill: (90, 60, 30))
        image.fillRectangle(x: 10, y: 10, width: width / 3, height: height / 2, color: (200, 30, 30))
        return try JPEGEncoder.encode(image, quality: 90)
    }

    func prepareError(_ path: String) -> PrepareError? {
        do {
            _ = try ImagePreparer().prepare(path: path)
            return nil
        } catch { return error }
    }

    @Test("a missing file, a directory and an empty file each have their own error")
    func fileErrors() throws {
        #expect(prepareError("/nonexistent/shelf.jpg") == .notFound)
        #expect(prepareError(FileManager.default.temporaryDirectory.path) == .isDirectory)
        #expect(prepareError(try write([], "empty.jpg")) == .empty)
    }

    @Test("an unreadable file is reported as such", .enabled(if: getuid() != 0, "root reads any file"))
    func unreadable() throws {
        let path = try write(try validJPEG(), "locked.jpg")
        chmod(path, 0)
        defer { chmod(path, 0o644) }
        guard case .unreadable = prepareError(path) else {
            Issue.record("expected unreadable")
            return
        }
    }

    static let signatures: [(ImageFormat, [UInt8])] = [
        (.png, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
        (.heic, [0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x68, 0x65, 0x69, 0x63]),
        (.webp, [0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0, 0x57, 0x45, 0x42, 0x50]),
        (.gif, [0x47, 0x49, 0x46, 0x38, 0x39, 0x61]),
    ]

    @Test("PNG, HEIC, WebP and GIF with a .jpg name are named by their real format", arguments: [ImageFormat.png, .heic, .webp, .gif])
    func wrongFormat(format: ImageFormat) throws {
        let signature = try #require(Self.signatures.first { $0.0 == format }?.1)
        let path = try write(signature + [UInt8](repeating: 0, count: 64), "\(format.rawValue).jpg")
        let error = prepareError(path)
        #expect(error == .unsupportedFormat(format))
        #expect(error?.description.contains(format.displayName) == true)
    }

    @Test("bytes that are no image at all")
    func notAnImage() throws {
        #expect(prepareError(try write(Array("hello, world".utf8), "text.jpg")) == .notAnImage)
    }

    @Test("a truncated JPEG and corrupt markers are refused (each as itself), not decoded into grey")
    func truncatedAndCorrupt() throws {
        let jpeg = try validJPEG()
        guard case .truncated = prepareError(try write(Array(jpeg.prefix(jpeg.count / 2)), "truncated.jpg")) else {
            Issue.record("truncated JPEG was accepted")
            return
        }
        let garbage: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + (0..<400).map { UInt8(truncatingIfNeeded: $0 &* 131) }
        guard case .corrupt = prepareError(try write(garbage, "markers.jpg")) else {
            Issue.record("corrupt markers were accepted")
            return
        }
    }

    @Test("a 60000×60000 header is refused before decoding")
    func hugeHeader() throws {
        var bytes = try validJPEG(width: 8, height: 8)
        if let sof = (0..<(bytes.count - 9)).first(where: { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 }) {
            bytes[sof + 5] = 0xEA; bytes[sof + 6] = 0x60; bytes[sof + 7] = 0xEA; bytes[sof + 8] = 0x60
        }
        #expect(prepareError(try write(bytes, "huge.jpg")) == .tooLarge(width: 60000, height: 60000, limit: 250_000_000))
    }

    @Test("a good photo is fitted to the long side and never upscaled")
    func fitting() throws {
        let big = try ImagePreparer(longSide: 200).prepare(path: try write(try validJPEG(width: 640, height: 480), "big.jpg"))
        #expect(max(big.width, big.height) == 200)
        #expect(big.width == 200 && big.height == 150)
        let small = try ImagePreparer(longSide: 1920).prepare(path: try write(try validJPEG(width: 320, height: 240), "small.jpg"))
        #expect(small.width == 320 && small.height == 240)
    }

    @Test("a re-encoded photo is turned upright and all metadata, GPS included, is stripped")
    func orientationAndMetadata() throws {
        let path = Self.samples.appendingPathComponent("shelf_rotated_exif_gps.jpg").path
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(EXIFOrientation.read(fromJPEG: original) == .right)
        let stored = try JPEGDecoder.readHeader(original)
        // Shrinking (1400 px → 1000) needs a decode: the pixels are turned upright before the encode.
        let prepared = try ImagePreparer(longSide: 1000).prepare(path: path)
        #expect(prepared.reencoded)
        #expect(prepared.width == 1000 && prepared.height * stored.height == 1000 * stored.width)  // upright: 1400 × 1050
        #expect(prepared.orientation == .right)
        #expect(EXIFOrientation.read(fromJPEG: prepared.jpeg) == .up)
        #expect(!contains(prepared.jpeg, Array("Exif".utf8)))
        #expect(contains(original, Array("Exif".utf8)))
    }

    @Test("a photo within the long side travels as the camera stored it: same pixels, only its orientation kept")
    func copiedWithoutMetadata() throws {
        let path = Self.samples.appendingPathComponent("shelf_rotated_exif_gps.jpg").path
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let stored = try JPEGDecoder.readHeader(original)
        let prepared = try ImagePreparer(longSide: 4096).prepare(path: path)
        #expect(!prepared.reencoded)
        #expect(prepared.width == stored.height && prepared.height == stored.width)
        // The decoder sees exactly the original's pixels; the service turns them with the kept tag.
        let before = try JPEGDecoder.decode(original), after = try JPEGDecoder.decode(prepared.jpeg)
        #expect(after.image.pixels == before.image.pixels)
        #expect(EXIFOrientation.read(fromJPEG: prepared.jpeg) == .right)
        // The GPS directory (tag 0x8825) and its "N"/"E" references are gone; the one EXIF segment is ours.
        #expect(contains(original, [0x88, 0x25]))
        #expect(!contains(prepared.jpeg, [0x88, 0x25]))
        #expect(contains(prepared.jpeg, JPEGMetadataStripper.exifSegment(.right)))
        #expect(prepared.jpeg.count < original.count)
    }

    @Test("the copy drops comments, other APPn segments and bytes after the image; keeps JFIF and Adobe's flag")
    func stripperSegments() throws {
        let jpeg = try validJPEG(width: 48, height: 32)
        #expect(Array(jpeg.prefix(4)) == [0xFF, 0xD8, 0xFF, 0xE0])
        func segment(_ marker: UInt8, _ text: String) -> [UInt8] {
            let body = Array(text.utf8)
            return [0xFF, marker, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        let jfifEnd = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5]))
        let adobe = segment(0xEE, "Adobe\u{0}d\u{0}\u{0}\u{0}\u{0}\u{1}")
        let noisy =
            Array(jpeg[0..<jfifEnd]) + segment(0xE1, "http://ns.adobe.com/xap/1.0/\u{0}<x:xmpmeta/>") + segment(0xFE, "shot on a phone")
            + segment(0xED, "Photoshop 3.0\u{0}IPTC") + adobe + Array(jpeg[jfifEnd...]) + Array("second photo".utf8)
        let copy = try #require(JPEGMetadataStripper.stripped(noisy, keeping: .up))
        #expect(copy == Array(jpeg[0..<jfifEnd]) + adobe + Array(jpeg[jfifEnd...]))
        #expect(JPEGMetadataStripper.stripped(copy, keeping: .up) == copy)
        // No end-of-image marker, or no image at all: not copied (preparation decodes it and says what is wrong).
        #expect(JPEGMetadataStripper.stripped(Array(jpeg.dropLast(2)), keeping: .up) == nil)
        #expect(JPEGMetadataStripper.stripped([0xFF, 0xD8] + segment(0xFE, "x") + [0xFF, 0xD9], keeping: .up) == nil)
    }

    @Test("a copy larger than the server accepts is re-encoded instead")
    func copyOverTheByteLimit() throws {
        let path = try write(try validJPEG(width: 320, height: 240), "limit.jpg")
        let copied = try ImagePreparer(longSide: 1920).prepare(path: path)
        #expect(!copied.reencoded)
        let squeezed = try ImagePreparer(longSide: 1920, quality: 40, maxBytes: copied.jpeg.count - 1).prepare(path: path)
        #expect(squeezed.reencoded && squeezed.width == 320)
    }

    @Test("orientation transforms move pixels where a viewer expects them")
    func orientationPixels() throws {
        // 2×1: left red, right blue
        let image = try #require(PixelBuffer(width: 2, height: 1, pixels: [255, 0, 0, 0, 0, 255]))
        let right = image.applying(.right)  // turned 90° clockwise: red on top
        #expect(right.width == 1 && right.height == 2)
        #expect(right.pixel(x: 0, y: 0) == (255, 0, 0))
        let left = image.applying(.left)  // turned 90° counter-clockwise: blue on top
        #expect(left.pixel(x: 0, y: 0) == (0, 0, 255))
        let down = image.applying(.down)
        #expect(down.pixel(x: 0, y: 0) == (0, 0, 255))
    }

    @Test("DCT scaling picks the largest denominator that keeps the needed size")
    func dctScale() {
        #expect(JPEGDecoder.scaleDenominator(sourceLongSide: 4032, minimumLongSide: 1000) == 4)
        #expect(JPEGDecoder.scaleDenominator(sourceLongSide: 4032, minimumLongSide: 1920) == 2)
        #expect(JPEGDecoder.scaleDenominator(sourceLongSide: 1600, minimumLongSide: 1920) == 1)
        #expect(JPEGDecoder.scaleDenominator(sourceLongSide: 16000, minimumLongSide: 1000) == 8)
    }

    func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }
}
