import ImageKit
import ScanEngine
import ScanProtocol
import Testing

/// A synthetic shelf: dark back wall, light boards, rows of flat-coloured books standing on the boards.
struct SyntheticShelf {
    struct Book {
        var x: Int
        var y: Int
        var width: Int
        var height: Int
    }

    var image: PixelBuffer
    var rows: [[Book]]

    static let palette: [(UInt8, UInt8, UInt8)] = [
        (200, 40, 40), (40, 160, 60), (230, 200, 60), (50, 80, 200), (220, 220, 210),
        (150, 60, 160), (240, 130, 40), (60, 170, 180), (120, 90, 50), (200, 120, 150),
    ]

    /// 900×600, two rows (interiors 30..<280 and 310..<560), books of varying width and height.
    static func make() -> SyntheticShelf {
        let width = 900, height = 600
        var image = PixelBuffer(width: width, height: height, fill: (45, 35, 32))
        let boards = [0..<30, 280..<310, 560..<600]
        for band in boards {
            for y in band { for x in 0..<width { image.setPixel(x: x, y: y, (190, 150, 100)) } }
        }
        let widths = [34, 52, 28, 60, 40, 46, 30, 56, 38, 44, 50, 36]
        let heights = [200, 170, 220, 150, 190, 210, 160, 180, 230, 175, 195, 165]
        var rows: [[Book]] = []
        for (r, bottom) in [280, 560].enumerated() {
            var books: [Book] = []
            var x = 80
            for k in 0..<12 {
                let w = widths[(k + r * 3) % widths.count], h = heights[(k + r * 5) % heights.count]
                let colour = palette[(k + r * 4) % palette.count]
                for yy in (bottom - h)..<bottom { for xx in x..<(x + w) { image.setPixel(x: xx, y: yy, colour) } }
                books.append(Book(x: x, y: bottom - h, width: w, height: h))
                x += w + (k % 4 == 3 ? 25 : 0)
            }
            rows.append(books)
        }
        return SyntheticShelf(image: image, rows: rows)
    }
}

func iou(_ a: NormalizedBox, _ b: (x: Double, y: Double, w: Double, h: Double)) -> Double {
    let ix = max(0, min(a.x + a.width, b.x + b.w) - max(a.x, b.x))
    let iy = max(0, min(a.y + a.height, b.y + b.h) - max(a.y, b.y))
    let inter = ix * iy
    let union = a.width * a.height + b.w * b.h - inter
    return union > 0 ? inter / union : 0
}

@Suite("ScanEngine")
struct ScanEngineTests {
    let shelf = SyntheticShelf.make()

    func scanShelf(progress: (ScanStage, Double) -> Void = { _, _ in }, isCancelled: () -> Bool = { false }) throws -> ScanResult {
        try ScanEngine().scan(
            image: shelf.image, sourceWidth: shelf.image.width, sourceHeight: shelf.image.height,
            progress: progress, isCancelled: isCancelled)
    }

    @Test("finds both rows and every book of a synthetic shelf")
    func syntheticShelf() throws {
        let result = try scanShelf()
        #expect(result.rows.count == 2)
        #expect(result.rows.map(\.spineCount) == [12, 12])
        #expect(result.spines.count == 24)
        let w = Double(shelf.image.width), h = Double(shelf.image.height)
        let books: [SyntheticShelf.Book] = shelf.rows.flatMap { $0 }
        for b in books {
            let book: (x: Double, y: Double, w: Double, h: Double) = (
                x: Double(b.x) / w, y: Double(b.y) / h, w: Double(b.width) / w, h: Double(b.height) / h
            )
            let best = result.spines.map { iou($0.box, book) }.max() ?? 0
            #expect(best > 0.8, "book at \(book) best IoU \(best)")
        }
    }

    @Test("spines are ordered row by row, left to right, with indices, confidences and colours")
    func ordering() throws {
        let result = try scanShelf()
        for (i, spine) in result.spines.enumerated() {
            #expect(spine.index == i)
            #expect(spine.confidence > 0 && spine.confidence <= 1)
            if i > 0 {
                let prev = result.spines[i - 1]
                #expect(prev.row < spine.row || (prev.row == spine.row && prev.box.x < spine.box.x))
            }
        }
        // The first book of the first row is red.
        let first = try #require(result.spines.first)
        #expect(first.color.r > 150 && first.color.g < 90 && first.color.b < 90)
    }

    @Test("a stack of lying books comes out as one lying spine per book")
    func lyingStack() throws {
        var image = shelf.image
        // Three books lying on the first row's board, right of the upright ones, each shorter than the one below.
        let stack: [(x: Int, y: Int, w: Int, h: Int, colour: (UInt8, UInt8, UInt8))] = [
            (660, 246, 210, 34, (40, 150, 70)), (672, 214, 186, 32, (230, 200, 60)), (684, 186, 160, 28, (200, 40, 40)),
        ]
        for book in stack {
            for y in book.y..<(book.y + book.h) { for x in book.x..<(book.x + book.w) { image.setPixel(x: x, y: y, book.colour) } }
        }
        let result = try ScanEngine().scan(
            image: image, sourceWidth: image.width, sourceHeight: image.height, progress: { _, _ in }, isCancelled: { false })
        let w = Double(image.width), h = Double(image.height)
        let lying = result.spines.filter { $0.pose == .lying }
        #expect(lying.count == stack.count)
        for book in stack {
            let box: (x: Double, y: Double, w: Double, h: Double) = (
                x: Double(book.x) / w, y: Double(book.y) / h, w: Double(book.w) / w, h: Double(book.h) / h
            )
            let best = lying.map { iou($0.box, box) }.max() ?? 0
            #expect(best > 0.6, "lying book at \(box) best IoU \(best)")
        }
        // The upright books of the row are still found.
        #expect(result.spines.filter { $0.row == 0 && $0.pose == .upright }.count == 12)
    }

    @Test("progress is monotonic, in stage order, and ends in finishing at 1")
    func progress() throws {
        var events: [(ScanStage, Double)] = []
        _ = try scanShelf(progress: { events.append(($0, $1)) })
        let order: [ScanStage] = [.decoding, .findingRows, .segmentingSpines, .finishing]
        #expect(events.count > 6)
        for (a, b) in zip(events, events.dropFirst()) {
            #expect(a.1 <= b.1)
            let ia = try #require(order.firstIndex(of: a.0)), ib = try #require(order.firstIndex(of: b.0))
            #expect(ia <= ib)
        }
        #expect(events.last?.0 == .finishing)
        #expect(events.last?.1 == 1)
        #expect(events.contains { $0.0 == .segmentingSpines })
    }

    @Test("cancellation at any poll throws .canceled", arguments: [0, 1, 3, 6])
    func cancellation(after polls: Int) {
        var count = 0
        #expect(throws: ScanEngineError.canceled) {
            _ = try scanShelf(isCancelled: {
                count += 1
                return count > polls
            })
        }
    }

    @Test("JPEG input gives the same rows and spine count")
    func jpegPath() throws {
        let jpeg = try JPEGEncoder.encode(shelf.image, quality: 92)
        let result = try ScanEngine().scan(jpeg: jpeg, maxPixels: 10_000_000, progress: { _, _ in }, isCancelled: { false })
        #expect(result.imageWidth == 900 && result.imageHeight == 600)
        #expect(result.rows.count == 2)
        #expect(result.spines.count == 24)
        #expect(result.timings.map(\.stage) == [.decoding, .findingRows, .segmentingSpines, .finishing])
    }

    @Test("bad input throws .image")
    func badInput() throws {
        let engine = try ScanEngine()
        func scan(_ bytes: [UInt8], maxPixels: Int = 0) throws(ScanEngineError) {
            _ = try engine.scan(jpeg: bytes, maxPixels: maxPixels, progress: { _, _ in }, isCancelled: { false })
        }
        #expect(throws: ScanEngineError.image(.empty)) { try scan([]) }
        #expect(throws: ScanEngineError.image(.notAnImage)) { try scan(Array("hello".utf8)) }
        #expect(throws: ScanEngineError.image(.unsupportedFormat(.png))) {
            try scan([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0])
        }
        do {
            try scan([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01])
            Issue.record("corrupt JPEG scanned")
        } catch {
            // The APP0 segment claims 16 bytes and 8 follow: the data runs out, so it is a truncated JPEG.
            guard case .image(.truncated) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
        }
    }

    @Test("refuses images over maxPixels before decoding")
    func tooLarge() throws {
        let jpeg = try JPEGEncoder.encode(shelf.image, quality: 80)
        #expect(throws: ScanEngineError.image(.tooManyPixels(width: 900, height: 600, limit: 1000))) {
            _ = try ScanEngine().scan(jpeg: jpeg, maxPixels: 1000, progress: { _, _ in }, isCancelled: { false })
        }
    }
}
