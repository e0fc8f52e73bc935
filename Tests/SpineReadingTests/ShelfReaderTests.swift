import Foundation
import ImageKit
import ScanProtocol
import SpineReading
import Testing

/// The photo-level reader: no garbage from text-free spines, cancellation, handle reuse, start-up errors.
@Suite("ShelfReader")
struct ShelfReaderTests {
    /// Spines of flat colour with texture and noise but no lettering (a deterministic generator).
    static func letterlessShelf() -> (PixelBuffer, [SpineOutline]) {
        let width = 900, height = 500
        var image = PixelBuffer(width: width, height: height, fill: (70, 50, 35))
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        var outlines: [SpineOutline] = []
        var x = 10
        while x < width - 60 {
            let w = 24 + next() % 40, top = 40 + next() % 120
            let base: (Int, Int, Int) = (next() % 200 + 30, next() % 200 + 30, next() % 200 + 30)
            for yy in top..<(height - 20) {
                for xx in x..<(x + w) {
                    // cloth texture: fine stripes plus noise, and darker edges like a rounded spine
                    let edge = min(xx - x, x + w - 1 - xx) < 3 ? -40 : 0
                    let grain = (yy % 3 == 0 ? 8 : 0) + next() % 13 - 6 + edge
                    image.setPixel(
                        x: xx, y: yy,
                        (UInt8(clamping: base.0 + grain), UInt8(clamping: base.1 + grain), UInt8(clamping: base.2 + grain)))
                }
            }
            outlines.append(
                SpineOutline(
                    box: NormalizedBox(
                        x: Double(x) / Double(width), y: Double(top) / Double(height), width: Double(w) / Double(width),
                        height: Double(height - 20 - top) / Double(height)), pose: .upright))
            x += w + 2
        }
        return (image, outlines)
    }

    @Test("a shelf with no lettering gives books without titles, not garbage")
    func noText() throws {
        let (image, outlines) = Self.letterlessShelf()
        let reader = ShelfReader(pool: try ReadingFixtures.pool.get())
        let texts = try #require(
            try reader.read(
                .image(image), sourceWidth: image.width, sourceHeight: image.height, spines: outlines, progress: { _, _ in },
                isCancelled: { false }))
        #expect(texts.count == outlines.count)
        #expect(texts.allSatisfy { $0.title == nil && $0.author == nil }, "\(texts.compactMap(\.title))")
    }

    @Test("progress counts spines one by one, n of N, and handles are pooled, not made per spine")
    func progressAndReuse() throws {
        let (image, outlines) = Self.letterlessShelf()
        let pool = try TesseractPool()  // its own: the suite's shared pool is in use by tests running in parallel
        let reader = ShelfReader(pool: pool, threads: 2)
        var seen: [Int] = []
        var totals = Set<Int>()
        _ = try reader.read(
            .image(image), sourceWidth: image.width, sourceHeight: image.height, spines: outlines,
            progress: { done, total in
                seen.append(done)
                totals.insert(total)
            }, isCancelled: { false })
        #expect(totals == [outlines.count])
        #expect(seen == Array(1...outlines.count))
        #expect(seen.last == outlines.count)
        // Both reading threads gave their handle back; reading again creates none.
        let idle = pool.idleCount
        #expect(idle >= 1 && idle <= 2)
        _ = try reader.read(
            .image(image), sourceWidth: image.width, sourceHeight: image.height, spines: outlines, progress: { _, _ in },
            isCancelled: { false })
        #expect(pool.idleCount == idle)
    }

    @Test("cancelling mid-reading stops between spines and returns nothing")
    func cancel() throws {
        let (image, outlines) = Self.letterlessShelf()
        let reader = ShelfReader(pool: try ReadingFixtures.pool.get(), threads: 2)
        var reports = 0
        var cancelled = false
        let texts = try reader.read(
            .image(image), sourceWidth: image.width, sourceHeight: image.height, spines: outlines,
            progress: { _, _ in
                reports += 1
                if reports == 2 { cancelled = true }
            }, isCancelled: { cancelled })
        #expect(texts == nil)
        #expect(reports < outlines.count, "reading went on after the cancel: \(reports) of \(outlines.count)")
    }

    @Test("missing language data is one clear error at start-up")
    func missingData() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("no-tessdata-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: SpineReadingError.languageDataMissing(language: "eng", dataPath: directory.path)) {
            try TesseractPool(settings: OCRSettings(dataPath: directory.path, language: "eng"))
        }
        let message = SpineReadingError.languageDataMissing(language: "eng", dataPath: directory.path).description
        #expect(!message.contains("\n") && message.contains("eng") && message.contains(directory.path))
    }

    @Test("the pool reports the engine, its version and language")
    func info() throws {
        let info = try ReadingFixtures.pool.get().info
        #expect(info.engine == "tesseract" && info.language == "eng")
        #expect(info.version.hasPrefix("5."))
    }
}
