package import SpineReading

/// Whether and how the engine reads titles: not at all (boxes only), with a recognizer it loads itself
/// when it is made, or with a reader that is already loaded (shared by several engines).
package enum TitleReading: Sendable {
    /// Boxes only: no `reading_titles` stage.
    case off
    /// Load this recognizer (nil: `BOOKSCAN_RECOGNIZER`, else `RecognizerKind.standard`) with these
    /// settings (language data, language) when the engine is made.
    case recognizer(RecognizerKind?, OCRSettings)
    /// Read with this reader (its recognizer pool is already loaded).
    case reader(ShelfReader)

    /// The default a scan service starts with: the configured recognizer, English.
    package static let standard = TitleReading.recognizer(nil, .standard)

    /// The reader this choice reads with, loading its recognizer if it names one; nil when titles are off.
    func loadedReader() throws(SpineReadingError) -> ShelfReader? {
        switch self {
        case .off: return nil
        case .reader(let reader): return reader
        case .recognizer(let chosen, let settings):
            return ShelfReader(pool: try RecognizerPool.loaded(chosen, settings: settings))
        }
    }
}
