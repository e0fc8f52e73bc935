import Foundation
import ImageKit
import ScanProtocol
import SpineReading

/// Shared fixtures: one pool of Tesseract handles for the whole suite, and the test images.
enum ReadingFixtures {
    /// One pool for every test (handles are created once and reused).
    static let pool: Result<TesseractPool, SpineReadingError> = Result { () throws(SpineReadingError) in try TesseractPool() }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let samples = root.appendingPathComponent("../../SampleImages").standardized

    /// The rendered title line ("Great Expectations", dark on light), decoded.
    static func titleLine() throws -> PixelBuffer {
        let data = try Data(contentsOf: root.appendingPathComponent("Fixtures/title_line.jpg"))
        return try JPEGDecoder.decode([UInt8](data)).image
    }

    /// "THE HOUSE OF MIRTH" in bold 20 px capitals: turned over, they still read as letters ("40 ASNOH AHL" when read one way only).
    static func capitalsLine() throws -> PixelBuffer {
        let data = try Data(contentsOf: root.appendingPathComponent("Fixtures/capitals_line.jpg"))
        return try JPEGDecoder.decode([UInt8](data)).image
    }

    /// "Little Men" in dark letters on a light label, beside "Louisa May Alcott" in light letters on the dark spine.
    static func labelLine() throws -> PixelBuffer {
        let data = try Data(contentsOf: root.appendingPathComponent("Fixtures/label_line.jpg"))
        return try JPEGDecoder.decode([UInt8](data)).image
    }

    /// A wide spine with "THE WINGS" over "OF THE DOVE" set small and tight, "HENRY JAMES" smaller beside them.
    static func stackedTitle() throws -> PixelBuffer {
        let data = try Data(contentsOf: root.appendingPathComponent("Fixtures/stacked_title.jpg"))
        return try JPEGDecoder.decode([UInt8](data)).image
    }

    /// "THE SONG OF THE LARK" small and soft on a narrow spine, under heavy grain (`grainy_fixture` in the generator).
    static func grainyLine() throws -> PixelBuffer {
        let data = try Data(contentsOf: root.appendingPathComponent("Fixtures/grainy_line.jpg"))
        return try JPEGDecoder.decode([UInt8](data)).image
    }

    /// "Sister Carrie" with its author and imprint in two smaller sizes on one line between a narrow spine's rules (`sizes_fixture`).
    static func threeSizesLine() throws -> PixelBuffer {
        let data = try Data(contentsOf: root.appendingPathComponent("Fixtures/three_sizes_line.jpg"))
        return try JPEGDecoder.decode([UInt8](data)).image
    }

    /// Casefolded letters and digits, words single-spaced: how evaluate.py compares titles.
    static func normalized(_ s: String?) -> String {
        guard let s else { return "" }
        let mapped = s.lowercased().replacingOccurrences(of: "&", with: " and ").map { $0.isLetter || $0.isNumber ? $0 : " " }
        return String(mapped).split(separator: " ").joined(separator: " ")
    }

    /// A box covering the whole image.
    static let wholeImage = NormalizedBox(x: 0, y: 0, width: 1, height: 1)
}
