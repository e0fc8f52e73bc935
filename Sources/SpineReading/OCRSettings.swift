import Foundation
import ScanProtocol

/// Where Tesseract's language data lives and which language to read: defined once here.
public struct OCRSettings: Sendable, Hashable {
    /// The tessdata directory; nil lets the library find its own (Debian: /usr/share/tesseract-ocr/5/tessdata).
    public var dataPath: String?
    /// The Tesseract language code.
    public var language: String

    /// The default: the library's own data, English.
    public static let standard = OCRSettings(dataPath: nil, language: "eng")

    public init(dataPath: String? = nil, language: String = "eng") {
        self.dataPath = dataPath
        self.language = language
    }
}

/// Why the reader cannot start.
public enum SpineReadingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Tesseract could not load `language` from `dataPath` (nil: the library's default place).
    case languageDataMissing(language: String, dataPath: String?)

    public var description: String {
        switch self {
        case .languageDataMissing(let language, let dataPath):
            let place = dataPath.map { "in \($0)" } ?? "where Tesseract looks for it (install tesseract-ocr-\(language))"
            return "OCR language data '\(language)' not found \(place)"
        }
    }
}
