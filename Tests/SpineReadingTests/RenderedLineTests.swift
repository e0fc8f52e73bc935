import Foundation
import ImageKit
import ScanProtocol
import SpineReading
import Testing

/// Tesseract through the reader on one rendered title line, turned to every orientation a spine shows.
@Suite("Reading a rendered line")
struct RenderedLineTests {
    /// How the line is turned, the pose of the book it stands for, and the orientation the reader must report.
    static let cases: [(String, EXIFOrientation, SpinePose, TextOrientation)] = [
        ("top to bottom (90°)", .right, .upright, .verticalTopToBottom),
        ("bottom to top (270°)", .left, .upright, .verticalBottomToTop),
        ("horizontal (lying book)", .up, .lying, .horizontal),
    ]

    @Test("reads the title in each direction", arguments: 0..<3)
    func direction(index: Int) throws {
        let (_, turn, pose, orientation) = Self.cases[index]
        let reader = ShelfReader(pool: try ReadingFixtures.pool.get())
        let image = try ReadingFixtures.titleLine().applying(turn)
        let texts = try #require(
            try reader.read(
                .image(image), sourceWidth: image.width, sourceHeight: image.height,
                spines: [SpineOutline(box: ReadingFixtures.wholeImage, pose: pose)], progress: { _, _ in }, isCancelled: { false }))
        #expect(ReadingFixtures.normalized(texts.first?.title) == "great expectations", "read \(String(describing: texts.first))")
        #expect(texts.first?.orientation == orientation)
        #expect((texts.first?.confidence ?? 0) > 0.7)
    }

    @Test("light text on a dark spine reads the same")
    func inverted() throws {
        let reader = ShelfReader(pool: try ReadingFixtures.pool.get())
        var image = try ReadingFixtures.titleLine().applying(.right)
        image.pixels = image.pixels.map { 255 - $0 }
        let texts = try #require(
            try reader.read(
                .image(image), sourceWidth: image.width, sourceHeight: image.height,
                spines: [SpineOutline(box: ReadingFixtures.wholeImage, pose: .upright)], progress: { _, _ in }, isCancelled: { false }))
        #expect(ReadingFixtures.normalized(texts.first?.title) == "great expectations")
    }

    @Test("a leaning spine's polygon turns the crop along its own axis")
    func polygon() throws {
        // The line turned top to bottom, then sheared into a leaning parallelogram inside a wider canvas.
        let upright = try ReadingFixtures.titleLine().applying(.right)
        let lean = 0.25  // horizontal shift per row, as a fraction of the height
        let shift = Int(Double(upright.height) * lean)
        var canvas = PixelBuffer(width: upright.width + shift + 20, height: upright.height + 20, fill: (226, 218, 196))
        for y in 0..<upright.height {
            let dx = 10 + Int(Double(y) * lean)
            for x in 0..<upright.width { canvas.setPixel(x: x + dx, y: y + 10, upright.pixel(x: x, y: y)) }
        }
        let w = Double(canvas.width), h = Double(canvas.height)
        let top = 10.0, bottom = 10.0 + Double(upright.height)
        let polygon = [
            NormalizedPoint(x: 10 / w, y: top / h), NormalizedPoint(x: (10 + Double(upright.width)) / w, y: top / h),
            NormalizedPoint(x: (10 + Double(upright.width) + Double(shift)) / w, y: bottom / h),
            NormalizedPoint(x: (10 + Double(shift)) / w, y: bottom / h),
        ]
        let reader = ShelfReader(pool: try ReadingFixtures.pool.get())
        let texts = try #require(
            try reader.read(
                .image(canvas), sourceWidth: canvas.width, sourceHeight: canvas.height,
                spines: [SpineOutline(box: ReadingFixtures.wholeImage, pose: .leaning, polygon: polygon)], progress: { _, _ in },
                isCancelled: { false }))
        #expect(ReadingFixtures.normalized(texts.first?.title) == "great expectations", "read \(String(describing: texts.first))")
    }
}
