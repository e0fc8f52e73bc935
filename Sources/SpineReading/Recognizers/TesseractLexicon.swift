import CTesseract
import Foundation
import Synchronization

/// English words as Tesseract's word list knows them (its language data's dictionary), asked through a
/// handle of its own. PP-OCR's line confidences stay near 1 on lettering it misread ("THE5OBOOKZ",
/// "GERAMIG PROGESSING"), so its titles are checked against the words a language has.
final class TesseractLexicon: @unchecked Sendable {
    private let handle: OpaquePointer
    /// Tesseract's handle is not thread-safe: one question at a time.
    private let lock = Mutex(())

    /// Loads the language's word list; throws `.languageDataMissing` when Tesseract cannot.
    init(settings: OCRSettings) throws(SpineReadingError) {
        guard let api = TessBaseAPICreate() else { throw .languageDataMissing(language: settings.language, dataPath: settings.dataPath) }
        guard TessBaseAPIInit2(api, settings.dataPath, settings.language, OEM_LSTM_ONLY) == 0 else {
            TessBaseAPIDelete(api)
            throw .languageDataMissing(language: settings.language, dataPath: settings.dataPath)
        }
        handle = api
    }

    deinit {
        TessBaseAPIEnd(handle)
        TessBaseAPIDelete(handle)
    }

    /// Whether `word` (letters, an inner hyphen or apostrophe) is a word of the language; a possessive
    /// ("CLIMBER'S") is its word, and a hyphenated word is known when each part is.
    func knows(_ word: String) -> Bool {
        let parts = word.split(separator: "-").map { part -> String in
            var p = String(part)
            for suffix in ["'s", "’s", "'S", "’S"] where p.hasSuffix(suffix) && p.count > 2 { p.removeLast(2) }
            return p.filter { $0.isLetter || $0 == "'" }
        }
        guard !parts.isEmpty else { return false }
        return parts.allSatisfy { part in
            !part.isEmpty && lock.withLock { _ in TessBaseAPIIsValidWord(handle, part) != 0 }
        }
    }

    /// Whether `word` in lower case is a word of the language: an ordinary word, not only a name ("Sussman").
    func knowsInLowerCase(_ word: String) -> Bool {
        let lower = word.lowercased()
        return !lower.isEmpty && lock.withLock { _ in TessBaseAPIIsValidWord(handle, lower) != 0 }
    }

    /// The share of the words of `title` the language knows: numbers count as known, marks are not words.
    func knownShare(of title: String) -> Double {
        let words = title.split(whereSeparator: \.isWhitespace).map { String($0).trimmingCharacters(in: .punctuationCharacters) }
            .filter { $0.contains { $0.isLetter || $0.isNumber } }
        guard !words.isEmpty else { return 0 }
        let known = words.filter { w in w.allSatisfy { $0.isNumber || $0 == "." || $0 == "," } || knows(w) }.count
        return Double(known) / Double(words.count)
    }
}
