@testable import ImageKit
import Testing

/// The resize keeps only a ring of horizontally filtered rows; it must give exactly what the two whole-image
/// passes it replaced gave (same taps, same float arithmetic in the same order).
@Suite("resize in a ring of rows")
struct ResizeTests {
    /// The whole-image version: the horizontal pass for every source row, then the vertical pass.
    static func reference(_ image: PixelBuffer, width newWidth: Int, height newHeight: Int) -> [UInt8] {
        let xTaps = PixelBuffer.taps(source: image.width, target: newWidth)
        let yTaps = PixelBuffer.taps(source: image.height, target: newHeight)
        var horizontal = [Float](repeating: 0, count: newWidth * image.height * 3)
        for y in 0..<image.height {
            for x in 0..<newWidth {
                var r: Float = 0, g: Float = 0, b: Float = 0
                for (index, weight) in xTaps[x] {
                    let s = (y * image.width + index) * 3
                    r += Float(image.pixels[s]) * weight
                    g += Float(image.pixels[s + 1]) * weight
                    b += Float(image.pixels[s + 2]) * weight
                }
                let d = (y * newWidth + x) * 3
                horizontal[d] = r
                horizontal[d + 1] = g
                horizontal[d + 2] = b
            }
        }
        var out = [UInt8](repeating: 0, count: newWidth * newHeight * 3)
        for y in 0..<newHeight {
            for x in 0..<newWidth {
                var r: Float = 0, g: Float = 0, b: Float = 0
                for (index, weight) in yTaps[y] {
                    let s = (index * newWidth + x) * 3
                    r += horizontal[s] * weight
                    g += horizontal[s + 1] * weight
                    b += horizontal[s + 2] * weight
                }
                let d = (y * newWidth + x) * 3
                out[d] = PixelBuffer.clamp(r)
                out[d + 1] = PixelBuffer.clamp(g)
                out[d + 2] = PixelBuffer.clamp(b)
            }
        }
        return out
    }

    static func pattern(width: Int, height: Int) -> PixelBuffer {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for i in pixels.indices { pixels[i] = UInt8(truncatingIfNeeded: (i &* 2_654_435_761) >> 13) }
        return PixelBuffer(width: width, height: height, pixels: pixels) ?? PixelBuffer(width: 1, height: 1, fill: (0, 0, 0))
    }

    @Test(
        "every size change gives the whole-image result, byte for byte",
        arguments: [
            (97, 61, 40, 25), (61, 97, 25, 40), (300, 200, 97, 65), (300, 200, 299, 199), (50, 40, 120, 96),
            (1, 80, 1, 7), (80, 1, 7, 1), (640, 480, 200, 150), (33, 500, 33, 17),
        ])
    func sameAsWholeImage(size: (Int, Int, Int, Int)) {
        let image = Self.pattern(width: size.0, height: size.1)
        let resized = image.resized(width: size.2, height: size.3)
        #expect(resized.width == size.2 && resized.height == size.3)
        let reference = Self.reference(image, width: size.2, height: size.3)
        let differing = zip(resized.pixels, reference).filter { $0 != $1 }.count
        #expect(resized.pixels.count == reference.count && differing == 0, "\(differing) bytes differ")
    }
}
