package import ScanProtocol

/// The recognizer handles a `ShelfReader` reads with: Tesseract's, PP-OCR's or both pools behind one face.
package final class RecognizerPool: Sendable {
    /// The pool of the engine chosen.
    package enum Engine: Sendable {
        case tesseract(TesseractPool)
        case ppocr(PPOCRPool)
        /// Tesseract first, PP-OCR for the spines it gave no title (`RecognizerKind.combined`).
        case combined(TesseractPool, PPOCRPool)
    }

    /// The pool.
    package let engine: Engine

    package init(_ engine: Engine) {
        self.engine = engine
    }

    /// Loads the recognizer `kind` names (Tesseract with `settings`, PP-OCR from `models`); throws what its pool throws.
    package convenience init(
        kind: RecognizerKind, settings: OCRSettings = .standard, models: PPOCRModels = .configured()
    ) throws(SpineReadingError) {
        switch kind {
        case .tesseract: self.init(.tesseract(try TesseractPool(settings: settings)))
        case .ppocr: self.init(.ppocr(try PPOCRPool(models: models, settings: settings)))
        case .combined: self.init(.combined(try TesseractPool(settings: settings), try PPOCRPool(models: models, settings: settings)))
        }
    }

    /// The recognizer `chosen` names, else the one `BOOKSCAN_RECOGNIZER` names, else the default (`standard`,
    /// which falls back to Tesseract alone without PP-OCR's models): one named is loaded or fails.
    package static func loaded(_ chosen: RecognizerKind?, settings: OCRSettings) throws(SpineReadingError) -> RecognizerPool {
        if let chosen { return try RecognizerPool(kind: chosen, settings: settings) }
        if let named = try RecognizerKind.named() { return try RecognizerPool(kind: named, settings: settings) }
        return try standard(settings: settings)
    }

    /// The default recognizer (`RecognizerKind.standard`); when PP-OCR's models are not installed (a build
    /// from source without `scripts/bootstrap-ppocr`), Tesseract alone rather than no reading: `/healthz`
    /// and each result name the engine that reads. Other failures are thrown.
    package static func standard(settings: OCRSettings = .standard, models: PPOCRModels = .configured()) throws(SpineReadingError) -> RecognizerPool {
        do {
            return try RecognizerPool(kind: RecognizerKind.standard, settings: settings, models: models)
        } catch .recognizerModelsMissing {
            return try RecognizerPool(kind: .tesseract, settings: settings)
        }
    }

    /// Which recognizer this is.
    package var kind: RecognizerKind {
        switch engine {
        case .tesseract: .tesseract
        case .ppocr: .ppocr
        case .combined: .combined
        }
    }

    /// The engine and its version, for `/healthz` and each result; combined: both versions ("tesseract 5.3.0 +
    /// ppocr PP-OCRv6…") and both languages.
    package var info: OCREngineStatus {
        switch engine {
        case .tesseract(let pool): pool.info
        case .ppocr(let pool): pool.info
        case .combined(let first, let second):
            OCREngineStatus(
                engine: RecognizerKind.combined.rawValue, version: "\(first.info.engine) \(first.info.version) + \(second.info.engine) \(second.info.version)",
                language: "\(first.info.language) + \(second.info.language)")
        }
    }

    /// Runs `body` with a handle checked out for the calling thread alone, then returns it to its pool; combined:
    /// PP-OCR's (it reads whole photos, stacks, better).
    func withRecognizer<T>(_ body: (any StripRecognizer) -> T) throws(SpineReadingError) -> T {
        switch engine {
        case .tesseract(let pool): return try Self.with(pool.checkOut, pool.checkIn, body)
        case .ppocr(let pool), .combined(_, let pool): return try Self.with(pool.checkOut, pool.checkIn, body)
        }
    }

    /// Runs `body` with the handle that reads every spine (combined: Tesseract's), checked out for the calling
    /// thread alone.
    func withSpineReader<T>(_ body: (any StripRecognizer) -> T) throws(SpineReadingError) -> T {
        switch engine {
        case .tesseract(let pool), .combined(let pool, _): return try Self.with(pool.checkOut, pool.checkIn, body)
        case .ppocr(let pool): return try Self.with(pool.checkOut, pool.checkIn, body)
        }
    }

    /// Runs `body` with a PP-OCR handle checked out for the calling thread alone (it reads whole photos' text
    /// lines); nil, without running it, when the pool has no PP-OCR (Tesseract alone).
    func withSceneTextReader<T>(_ body: (PPOCRRecognizer) -> T) throws(SpineReadingError) -> T? {
        switch engine {
        case .tesseract: return nil
        case .ppocr(let pool), .combined(_, let pool): return try Self.with(pool.checkOut, pool.checkIn, body)
        }
    }

    /// `body` with a handle from `checkOut`, given back through `checkIn` after.
    private static func with<Handle: StripRecognizer, T>(
        _ checkOut: () throws(SpineReadingError) -> Handle, _ checkIn: (Handle) -> Void, _ body: (Handle) throws(SpineReadingError) -> T
    ) throws(SpineReadingError) -> T {
        let handle = try checkOut()
        defer { checkIn(handle) }
        return try body(handle)
    }
}
