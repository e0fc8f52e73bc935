import ImageKit
import ScanProtocol
import Testing

@testable import ScanEngine

/// Dim photos' levels stretched before detection; photos that use the levels left alone.
@Suite("Stretching a dim photo's levels")
struct LevelStretcherTests {
    /// The synthetic shelf as if photographed with a fifth of the light.
    static func dimShelf() -> PixelBuffer {
        var image = SyntheticShelf.make().image
        for k in image.pixels.indices { image.pixels[k] = UInt8(Int(image.pixels[k]) / 5) }
        return image
    }

    @Test("a dim image's black and white levels become 0 and 255; a full-range image is left as it is")
    func levels() {
        let dim = WorkImage(Self.dimShelf(), targetLongSide: 1000)
        let stretched = LevelStretcher().stretched(dim)
        #expect(dim.pixels.max() ?? 0 <= 48)
        #expect(stretched.pixels.min() == 0 && stretched.pixels.max() == 255)
        // Every level from black to white, across 256 columns.
        let full = WorkImage(width: 256, height: 4, pixels: (0..<(256 * 4)).flatMap { k in [UInt8](repeating: UInt8(k % 256), count: 3) })
        let unchanged = LevelStretcher().stretched(full).pixels == full.pixels
        #expect(unchanged)
    }

    @Test("every book of the synthetic shelf is found in a fifth of the light, and not without the stretch")
    func dimShelfIsScanned() throws {
        let image = Self.dimShelf()
        func books(_ configuration: ScanEngine.Configuration) throws -> Int {
            try ScanEngine(configuration: configuration).scan(
                image: image, sourceWidth: image.width, sourceHeight: image.height, progress: { _, _ in }, isCancelled: { false }
            ).spines.count
        }
        #expect(try books(.init()) == 24)
        var unstretched = ScanEngine.Configuration()
        unstretched.levels.maxRange = 0
        #expect(try books(unstretched) < 24)
    }
}
