import ImageKit
import Testing

@testable import SpineReading

/// A spine's crop of the reading photo gives the strips the whole photo gives, so reading from crops
/// (which frees the whole photo before Tesseract starts) changes no reading.
@Suite("The reading photo, whole and cropped to a spine")
struct ReadingPhotoTests {
    /// A stored image of deterministic noise: any misplaced sample shows.
    static func noise(width: Int, height: Int) -> GrayImage? {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        let pixels = (0..<(width * height)).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    /// A standing spine, a leaning one, a lying one and one that runs past the photo's edges.
    static let frames: [SpineFrame] = [
        SpineFrame(centerX: 60, centerY: 110, axisX: 0, axisY: 1, length: 180, width: 34),
        SpineFrame(centerX: 150, centerY: 120, axisX: 0.259, axisY: 0.966, length: 190, width: 41),
        SpineFrame(centerX: 120, centerY: 200, axisX: 1, axisY: 0, length: 150, width: 28),
        SpineFrame(centerX: 225, centerY: 20, axisX: 0.5, axisY: 0.866, length: 160, width: 60),
    ]

    @Test("every direction and scale samples the same strip from the crop as from the whole photo, in every EXIF orientation")
    func cropSamplesAsWhole() throws {
        let stored = try #require(Self.noise(width: 240, height: 230))
        for orientation in EXIFOrientation.allCases {
            let whole = ReadingPhoto(stored: stored, orientation: orientation)
            for frame in Self.frames {
                let crop = whole.cropped(to: frame)
                #expect(crop.stored.width * crop.stored.height < stored.width * stored.height)
                #expect(crop.width == whole.width && crop.height == whole.height)
                for direction in ReadingDirection.allCases {
                    for scale in [0.45, 1, 2.5] {
                        let fromWhole = StripSampler.strip(whole, frame: frame, direction: direction, scale: scale, trim: 0.05)
                        let fromCrop = StripSampler.strip(crop, frame: frame, direction: direction, scale: scale, trim: 0.05)
                        #expect(fromWhole != nil)
                        #expect(fromWhole == fromCrop, "\(orientation) \(direction) \(scale) \(frame)")
                    }
                }
            }
        }
    }

    @Test("a crop holds the stored pixels under the spine: the area it reports, clipped at the photo's edges")
    func cropBounds() throws {
        let stored = try #require(Self.noise(width: 240, height: 230))
        let whole = ReadingPhoto(stored: stored, orientation: .up)
        let standing = whole.cropped(to: Self.frames[0])
        // 34 × 180 around (60, 110), two pixels of margin each side.
        #expect(standing.originX == 41 && standing.originY == 18)
        #expect(standing.stored.width == 39 && standing.stored.height == 185)
        #expect(whole.croppedArea(Self.frames[0]) == 39 * 185)
        let row = 50
        let expected = Array(stored.pixels[((row + 18) * 240 + 41)..<((row + 18) * 240 + 41 + 39)])
        #expect(Array(standing.stored.pixels[(row * 39)..<(row * 39 + 39)]) == expected)
        // Past the top and right edges: the crop stops at them.
        let edge = whole.cropped(to: Self.frames[3])
        #expect(edge.originY == 0 && edge.originX + edge.stored.width == 240)
    }
}
