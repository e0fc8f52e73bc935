import Foundation
import ImageKit
import ImagePreparation
import Testing

/// Some scanners and phones save CMYK JPEGs (Adobe's inverted CMYK, or YCCK): libjpeg gives their samples as
/// CMYK, which the decoder turns into RGB or gray, so such a photo is scanned like any other.
@Suite("CMYK JPEGs")
struct CMYKDecodeTests {
    /// A 64×48 Adobe CMYK JPEG (Pillow, quality 95): red top left (208, 32, 32), blue top right (32, 64, 192),
    /// light gray (240) below.
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/cmyk_adobe.jpg").path

    static func bytes() throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture))) }

    static func near(_ a: UInt8, _ b: Int) -> Bool { abs(Int(a) - b) <= 8 }

    @Test("an Adobe CMYK JPEG decodes to its colours in RGB and to their luma in gray")
    func decodes() throws {
        let data = try Self.bytes()
        #expect(try JPEGDecoder.readHeader(data).components == 4)
        let image = try JPEGDecoder.decode(data).image
        #expect(image.width == 64 && image.height == 48)
        let red = image.pixel(x: 8, y: 8), blue = image.pixel(x: 56, y: 8), light = image.pixel(x: 32, y: 44)
        #expect(Self.near(red.r, 208) && Self.near(red.g, 32) && Self.near(red.b, 32), "\(red)")
        #expect(Self.near(blue.r, 32) && Self.near(blue.g, 64) && Self.near(blue.b, 192), "\(blue)")
        #expect(Self.near(light.r, 240) && Self.near(light.g, 240) && Self.near(light.b, 240), "\(light)")
        let gray = try JPEGDecoder.decodeGray(data, scaleDenominator: 1)
        let redLuma: Int = (208 * 299 + 32 * 587 + 32 * 114) / 1000
        let blueLuma: Int = (32 * 299 + 64 * 587 + 192 * 114) / 1000
        let grayRed: UInt8 = gray.pixels[8 * 64 + 8], grayBlue: UInt8 = gray.pixels[8 * 64 + 56]
        #expect(Self.near(grayRed, redLuma), "\(grayRed)")
        #expect(Self.near(grayBlue, blueLuma), "\(grayBlue)")
    }

    @Test("a CMYK photo is prepared for upload like any other, and what is uploaded decodes to its colours")
    func prepares() throws {
        let prepared = try ImagePreparer().prepare(bytes: try Self.bytes())
        #expect(prepared.width == 64 && prepared.height == 48)
        let red = try JPEGDecoder.decode(prepared.jpeg).image.pixel(x: 8, y: 8)
        #expect(Self.near(red.r, 208) && Self.near(red.g, 32), "\(red)")
    }
}
