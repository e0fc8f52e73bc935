import ScanProtocol
import SpineReading
import Testing

@testable import ScanEngine

/// When the engine reads a photo again as a stack, and the colours it gives the stack's books.
@Suite("Stack reading in the engine")
struct EngineStackReadingTests {
    static func spine(_ index: Int, title: String?, text: String? = nil) -> Spine {
        Spine(
            index: index, row: 0, box: NormalizedBox(x: 0.1 * Double(index % 10), y: 0, width: 0.05, height: 1), confidence: 0.9,
            color: RGBColor(r: 0, g: 0, b: 0), pose: .upright, title: title, text: text ?? title)
    }

    @Test("a photo is read again as a stack when lettering was read but fewer than a tenth of its spines gave a title")
    func trigger() {
        #expect(StackReading.isWorthTrying((0..<30).map { Self.spine($0, title: $0 == 0 ? "ONE" : nil) }))
        #expect(StackReading.isWorthTrying((0..<8).map { Self.spine($0, title: nil, text: $0 == 3 ? "URS" : nil) }))
        // Nothing read anywhere: a blank card, plain boxes.
        #expect(!StackReading.isWorthTrying([]))
        #expect(!StackReading.isWorthTrying((0..<10).map { Self.spine($0, title: nil) }))
        #expect(!StackReading.isWorthTrying((0..<10).map { Self.spine($0, title: $0 < 2 ? "A TITLE" : nil) }))
        #expect(!StackReading.isWorthTrying([Self.spine(0, title: "EMMA")]))
    }

    @Test("a stack book's colour is the median of the working image under its box")
    func colors() throws {
        // 200 × 100: the top half red, the bottom half blue, one white speck in the red.
        var pixels = [UInt8](repeating: 0, count: 200 * 100 * 3)
        for y in 0..<100 {
            for x in 0..<200 {
                let i = (y * 200 + x) * 3
                if y < 50 { pixels[i] = 200 } else { pixels[i + 2] = 180 }
            }
        }
        for c in 0..<3 { pixels[(10 * 200 + 10) * 3 + c] = 255 }
        let thumbnail = ColorThumbnail(WorkImage(width: 200, height: 100, pixels: pixels))
        #expect(max(thumbnail.width, thumbnail.height) <= ColorThumbnail.longSide)
        #expect(thumbnail.medianColor(in: NormalizedBox(x: 0, y: 0, width: 1, height: 0.45)) == RGBColor(r: 200, g: 0, b: 0))
        #expect(thumbnail.medianColor(in: NormalizedBox(x: 0, y: 0.55, width: 1, height: 0.45)) == RGBColor(r: 0, g: 0, b: 180))
        // A box outside the image takes the nearest pixels.
        #expect(thumbnail.medianColor(in: NormalizedBox(x: 1.5, y: 2, width: 0.1, height: 0.1)) == RGBColor(r: 0, g: 0, b: 180))
        let books = [StackBook(box: NormalizedBox(x: 0, y: 0.6, width: 1, height: 0.3), text: SpineText(title: "EMMA", author: nil, text: "EMMA", confidence: 0.9, orientation: .horizontal))]
        let spines = StackReading.spines(books, thumbnail: thumbnail)
        #expect(spines.count == 1 && spines[0].pose == .lying && spines[0].title == "EMMA" && spines[0].color == RGBColor(r: 0, g: 0, b: 180))
    }
}
