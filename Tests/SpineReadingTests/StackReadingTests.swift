import BookscanTestSupport
import Foundation
import ImageKit
import ScanEngine
import ScanProtocol
import SpineReading
import Testing

/// Horizontal stacks read text first: a committed real shelf photo turned on its side is a stack of lying
/// books whose spines cross the photo, and the titles a person reads on it are read from it.
@Suite("Horizontal stacks, read text first")
struct StackReadingTests {
    /// The real shelf photo `name` turned a quarter so that its spines lie across it, its lettering upright.
    static func sideways(_ name: String) throws -> PixelBuffer {
        let bytes = try [UInt8](Data(contentsOf: RealPhotoTests.directory.appendingPathComponent(name + ".jpg")))
        return try JPEGDecoder.decode(bytes, scaleDenominator: 1).image.applying(EXIFOrientation.left)
    }

    static func truth(_ name: String) throws -> RealPhotoTests.Truth {
        try JSONDecoder().decode(RealPhotoTests.Truth.self, from: Data(contentsOf: RealPhotoTests.directory.appendingPathComponent(name + ".json")))
    }

    static func pool(_ kind: RecognizerKind) throws -> RecognizerPool {
        kind == .ppocr ? try RecognizerTests.ppocr.get() : RecognizerPool(.tesseract(try ReadingFixtures.pool.get()))
    }

    /// Floors per recognizer on real_103 turned on its side: what it reads today (2026-11-28) less one
    /// title. Of 11 legible titles, PP-OCR reads 1 exactly and 3 within CER 0.2, and 5 of the 5 titles it
    /// gives are on the shelf; Tesseract (which reads no light lettering on dark) 0, 0 and 1 of 1.
    /// Tesseract's floor is the one title it gives right (exact and CER floors of 0 could not fail: none is set).
    static let floors: [RecognizerKind: (exact: Int, close: Int, right: Int)] = [.tesseract: (0, 0, 1), .ppocr: (0, 2, 4)]

    @Test("the reader finds the lying books of a stack and their titles", arguments: [RecognizerKind.tesseract, .ppocr])
    func stackBooks(kind: RecognizerKind) async throws {
        if kind == .ppocr, !RecognizerTests.ppocrRuns { return }
        let photo = try Self.sideways("real_103")
        let reader = ShelfReader(pool: try Self.pool(kind))
        let books = try await HeavyTests.gate.run {
            try await onThread { try reader.readStack(.image(photo), isCancelled: { false }) }
        }
        let found = try #require(books)
        let score = RealPhotoTests.score(titles: found.compactMap(\.text.title), truth: try Self.truth("real_103"))
        for book in found {
            let box = book.box
            #expect(box.x >= 0 && box.y >= 0 && box.x + box.width <= 1.0001 && box.y + box.height <= 1.0001)
            #expect(book.text.orientation == .horizontal && book.text.title != nil)
        }
        // Top to bottom.
        #expect(found.map(\.box.y) == found.map(\.box.y).sorted())
        let floor = try #require(Self.floors[kind])
        #expect(score.exact >= floor.exact, "\(kind.rawValue): \(score)")
        #expect(score.close >= floor.close, "\(kind.rawValue): \(score)")
        // Something given, nearly all of it on the shelf: a reading that gives nothing fails here.
        #expect(score.given >= 1 && score.right >= floor.right && score.right + 1 >= score.given, "\(kind.rawValue): \(score)")
    }

    @Test("a reading cancelled before it starts returns nothing")
    func cancelled() throws {
        let reader = ShelfReader(pool: try Self.pool(.tesseract))
        let photo = try Self.sideways("real_106")
        #expect(try reader.readStack(.image(photo), isCancelled: { true }) == nil)
    }
}
