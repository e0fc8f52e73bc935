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

    /// What the reader makes of `image` as one whole-image spine of `pose`.
    static func readWhole(_ image: PixelBuffer, pose: SpinePose, tuning: ReadingTuning = .init()) throws -> SpineText? {
        let reader = ShelfReader(pool: try ReadingFixtures.pool.get(), tuning: tuning)
        let texts = try reader.read(
            .image(image), sourceWidth: image.width, sourceHeight: image.height,
            spines: [SpineOutline(box: ReadingFixtures.wholeImage, pose: pose)], progress: { _, _ in }, isCancelled: { false })
        return texts?.first
    }

    /// Reads `line` turned as `cases[index]` says and expects `title` (normalised) in that case's orientation.
    @discardableResult
    static func expectTitle(_ line: PixelBuffer, case index: Int, _ title: String) throws -> SpineText? {
        let (_, turn, pose, orientation) = cases[index]
        let text = try readWhole(line.applying(turn), pose: pose)
        #expect(ReadingFixtures.normalized(text?.title) == title, "read \(String(describing: text))")
        #expect(text?.orientation == orientation)
        return text
    }

    @Test("reads the title in each direction", arguments: 0..<3)
    func direction(index: Int) throws {
        let text = try Self.expectTitle(try ReadingFixtures.titleLine(), case: index, "great expectations")
        #expect((text?.confidence ?? 0) > 0.7)
    }

    @Test("capitals are read the right way round, not as the letters they make upside down", arguments: 0..<2)
    func capitalsTurnedOver(index: Int) throws {
        try Self.expectTitle(try ReadingFixtures.capitalsLine(), case: index, "the house of mirth")
    }

    @Test("a light label with dark letters on a dark spine with light ones: the label's title is read", arguments: 0..<3)
    func label(index: Int) throws {
        try Self.expectTitle(try ReadingFixtures.labelLine(), case: index, "little men")
    }

    @Test("a title under heavy grain is read: the grainy strip is made black and white before Tesseract", arguments: 0..<3)
    func grainyTitle(index: Int) throws {
        try Self.expectTitle(try ReadingFixtures.grainyLine(), case: index, "the song of the lark")
    }

    /// Reads `line` turned top to bottom with `tuning` and expects any title but `title` (normalised).
    static func expectNotTitle(_ line: PixelBuffer, tuning: ReadingTuning, _ title: String) throws {
        let (_, turn, pose, _) = cases[0]
        // The spine was read (a reading that returned nothing would pass "not the title" for any reason).
        let text = try #require(try readWhole(line.applying(turn), pose: pose, tuning: tuning))
        #expect(ReadingFixtures.normalized(text.title) != title, "read \(text)")
    }

    @Test("left to Tesseract's own threshold, the same grainy title is not read")
    func grainyTitleWithoutThreshold() throws {
        var tuning = ReadingTuning()
        tuning.grainyStrip = .infinity
        try Self.expectNotTitle(try ReadingFixtures.grainyLine(), tuning: tuning, "the song of the lark")
    }

    /// `line` in the middle of a spine `width` × `length` pixels of its own background colour (the corner pixel's).
    static func onWideSpine(_ line: PixelBuffer, width: Int, length: Int) -> PixelBuffer {
        let background = (r: line.pixels[0], g: line.pixels[1], b: line.pixels[2])
        var spine = PixelBuffer(width: length, height: width, fill: background)
        let left = (length - line.width) / 2, top = (width - line.height) / 2
        for y in 0..<line.height {
            for x in 0..<line.width {
                for c in 0..<3 { spine.pixels[((top + y) * length + left + x) * 3 + c] = line.pixels[(y * line.width + x) * 3 + c] }
            }
        }
        return spine
    }

    @Test("a line on a spine four times as wide as the line is tall is read along it")
    func titleOnWideSpine() throws {
        let line = try ReadingFixtures.titleLine()
        try Self.expectTitle(Self.onWideSpine(line, width: 4 * line.height, length: 2 * line.width), case: 0, "great expectations")
    }

    @Test("a title set small in two tight lines beside its author on a wide spine: both lines are read", arguments: 0..<2)
    func stackedTitle(index: Int) throws {
        try Self.expectTitle(try ReadingFixtures.stackedTitle(), case: index, "the wings of the dove")
    }

    @Test("title, author and imprint in three sizes on one line: read block by block, the title comes out", arguments: 0..<2)
    func threeSizes(index: Int) throws {
        try Self.expectTitle(try ReadingFixtures.threeSizesLine(), case: index, "sister carrie")
    }

    @Test("the same line read as one block gives no title")
    func threeSizesAsOneBlock() throws {
        var tuning = ReadingTuning()
        tuning.sparseTextAlong = false
        // The strip as sampled, without readings at other scales: two of those can agree on the title
        // even in one block (`TitleVote`), which is not what this case is about.
        tuning.confirmingScales = []
        try Self.expectNotTitle(try ReadingFixtures.threeSizesLine(), tuning: tuning, "sister carrie")
    }

    @Test("small lettering that gives no title is read again enlarged", arguments: [48.0, 50.0, 52.0])
    func smallLetteringEnlarged(stripHeight: Double) throws {
        // A strip this low leaves the stacked title's capitals 8–9 px high: too small to read as a title.
        // Read as one block (the sparse-text layout loses the second line of these small capitals at any
        // size; the mechanism under test is the enlargement).
        var tuning = ReadingTuning()
        tuning.alongStripHeight = stripHeight
        tuning.sparseTextAlong = false
        let text = try Self.readWhole(try ReadingFixtures.stackedTitle().applying(.right), pose: .upright, tuning: tuning)
        #expect(ReadingFixtures.normalized(text?.title) == "the wings of the dove", "read \(String(describing: text))")
    }

    @Test("a title that must be confirmed is given when a strip at another scale reads it too, withheld when none can")
    func confirmation() throws {
        let line = try ReadingFixtures.titleLine().applying(.right)
        var everything = ReadingTuning()
        everything.sureTitleConfidence = 1.01  // every title needs a second reading
        let confirmed = try Self.readWhole(line, pose: .upright, tuning: everything)
        #expect(ReadingFixtures.normalized(confirmed?.title) == "great expectations", "read \(String(describing: confirmed))")
        var impossible = everything
        impossible.confirmingScales = [0.01, 0.02]  // the other strips are too small to sample: nothing confirms
        let withheld = try Self.readWhole(line, pose: .upright, tuning: impossible)
        #expect(withheld?.title == nil)
        #expect(withheld?.author == nil)
        let kept = ReadingFixtures.normalized(withheld?.text)
        #expect(kept.contains("great expectations"), "the reading stays in text: \(kept)")
        var third = everything
        third.confirmingScales = [0.01, 0.9]  // the second strip cannot be sampled; the third confirms
        let late = try Self.readWhole(line, pose: .upright, tuning: third)
        #expect(ReadingFixtures.normalized(late?.title) == "great expectations", "read \(String(describing: late))")
    }

    @Test("light text on a dark spine reads the same")
    func inverted() throws {
        var image = try ReadingFixtures.titleLine().applying(.right)
        image.pixels = image.pixels.map { 255 - $0 }
        #expect(ReadingFixtures.normalized(try Self.readWhole(image, pose: .upright)?.title) == "great expectations")
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
