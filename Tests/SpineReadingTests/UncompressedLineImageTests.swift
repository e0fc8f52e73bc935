import ImageKit
import Testing

@testable import SpineReading

/// Tesseract hands each line to its LSTM through an in-memory PNG; `CTesseractShim` makes that PNG
/// uncompressed (lossless either way). This checks the interposition is in effect in a linked executable
/// (the export of `png_set_compression_level` is what makes Leptonica's call land in the shim).
@Suite("Tesseract's line images")
struct UncompressedLineImageTests {
    @Test("reading a line writes its image through the shim, and the reading is unchanged in kind")
    func throughTheShim() throws {
        let engine = try TesseractEngine(settings: .standard)
        let line = GrayImage(try ReadingFixtures.titleLine())
        let before = TesseractEngine.uncompressedLineImages
        let words = engine.read(line, layout: .singleLine)
        #expect(TesseractEngine.uncompressedLineImages > before)
        #expect(words.map(\.text).joined(separator: " ").lowercased().contains("expectations"))
    }
}
