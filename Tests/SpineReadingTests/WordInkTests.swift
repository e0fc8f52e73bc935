import ImageKit
import Testing

@testable import SpineReading

/// A word's size measured on the ink under its box, on strips drawn by hand.
@Suite("Measuring a word's ink")
struct WordInkTests {
    /// A white strip with dark rectangles (x, y, width, height).
    static func strip(width: Int = 200, height: Int = 80, marks: [(Int, Int, Int, Int)], ink: UInt8 = 20) -> GrayImage? {
        var pixels = [UInt8](repeating: 255, count: width * height)
        for (x0, y0, w, h) in marks {
            for y in y0..<(y0 + h) {
                for x in x0..<(x0 + w) { pixels[y * width + x] = ink }
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    @Test("a box spanning the whole strip measures the letters inside it, not the box")
    func inflatedBox() throws {
        // Three capitals 24 px tall (rows 30…53): a top bar and two stems each.
        let marks = [0, 40, 80].flatMap { x in [(x + 10, 30, 24, 3), (x + 10, 30, 3, 24), (x + 31, 30, 3, 24)] }
        let image = try #require(Self.strip(marks: marks))
        #expect(WordInk.inkHeight(image, left: 0, top: 0, right: 120, bottom: 80) == 24)
    }

    @Test("the thin stem of one tall letter among x-height letters still counts")
    func loneAscender() throws {
        // "Jo…": a 4 px stem from row 20 to 49 beside a wide x-height body (rows 30…49, 120 px of ink per row).
        let image = try #require(Self.strip(marks: [(10, 20, 4, 30), (20, 30, 120, 20)]))
        #expect(WordInk.inkHeight(image, left: 0, top: 15, right: 190, bottom: 55) == 30)
    }

    @Test("a box reaching into the line above measures its own line")
    func neighbourLine() throws {
        // Line above: rows 5…24, heavy ink. This word: rows 30…47, its box from row 20 to 52.
        let image = try #require(Self.strip(marks: [(0, 5, 200, 20), (20, 30, 60, 18)]))
        #expect(WordInk.inkHeight(image, left: 20, top: 20, right: 80, bottom: 52) == 18)
        #expect(WordInk.inkHeight(image, left: 100, top: 60, right: 150, bottom: 78) == nil)
    }

    @Test("gray lettering is measured against its own box; a mark not read as a word only by dark ink")
    func grayLettering() throws {
        // Capitals 24 px tall (rows 30…53) in gray 150 on white, as a strip stretched against black bands leaves them.
        let marks = [0, 40, 80].flatMap { x in [(x + 10, 30, 24, 3), (x + 10, 30, 3, 24), (x + 31, 30, 3, 24)] }
        let image = try #require(Self.strip(marks: marks, ink: 150))
        #expect(WordInk.inkHeight(image, left: 0, top: 20, right: 120, bottom: 60) == 24)
        #expect(WordInk.inkHeight(image, left: 0, top: 20, right: 120, bottom: 60, darkOnly: true) == nil)
        // A blank box has no contrast, so no ink.
        #expect(WordInk.inkHeight(image, left: 150, top: 20, right: 190, bottom: 60) == nil)
    }

    @Test("ink height becomes cap height by what the letters are")
    func capHeight() throws {
        #expect(WordInk.capHeight(ink: 30, text: "GOLDEN") == 30)
        // x-height letters only: 1/1.38 of the cap height.
        let short = try #require(WordInk.capHeight(ink: 20, text: "on"))
        #expect(abs(short - 27.6) < 0.01)
        // Capital and descender: cap height plus about a third of it.
        let tall = try #require(WordInk.capHeight(ink: 33, text: "Journey"))
        #expect(abs(tall - 25) < 0.01)
        #expect(WordInk.capHeight(ink: 30, text: "—") == nil)
    }
}
