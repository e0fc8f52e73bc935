import Foundation
import ScanProtocol

/// Where Tesseract's language data lives and which language to read: defined once here.
package struct OCRSettings: Sendable, Hashable {
    /// The tessdata directory; nil lets the library find its own (Debian: /usr/share/tesseract-ocr/5/tessdata).
    package var dataPath: String?
    /// The Tesseract language code.
    package var language: String

    /// The default: the library's own data, English.
    package static let standard = OCRSettings(dataPath: nil, language: defaultLanguage)
    /// The language titles are read in unless told otherwise (a Tesseract code).
    package static let defaultLanguage = "eng"

    package init(dataPath: String? = nil, language: String = defaultLanguage) {
        self.dataPath = dataPath
        self.language = language
    }
}

/// Why the reader cannot start.
package enum SpineReadingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Tesseract could not load `language` from `dataPath` (nil: the library's default place).
    case languageDataMissing(language: String, dataPath: String?)
    /// A model file of `engine` is not there (for PP-OCR: run scripts/bootstrap-ppocr, or point
    /// `BOOKSCAN_PPOCR_MODELS` at a directory that holds it).
    case recognizerModelsMissing(engine: String, missingFile: String)
    /// The engine found its model files but could not load them; `reason` is the library's message.
    case recognizerLoadFailed(engine: String, reason: String)
    /// `BOOKSCAN_RECOGNIZER` names no recognizer.
    case unknownRecognizer(String)

    package var description: String {
        switch self {
        case .languageDataMissing(let language, let dataPath):
            let place = dataPath.map { "in \($0)" } ?? "where Tesseract looks for it (install tesseract-ocr-\(language))"
            return "OCR language data '\(language)' not found \(place)"
        case .recognizerModelsMissing(let engine, let missingFile):
            return "\(engine) model file \(missingFile) not found (run scripts/bootstrap-ppocr, or set \(PPOCRModels.environmentVariable))"
        case .recognizerLoadFailed(let engine, let reason):
            return "\(engine) could not load its models: \(reason)"
        case .unknownRecognizer(let value):
            let known = RecognizerKind.allCases.map(\.rawValue).joined(separator: ", ")
            return "unknown recognizer '\(value)' in \(RecognizerKind.environmentVariable) (known: \(known))"
        }
    }
}
