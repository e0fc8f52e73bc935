package import ScanProtocol

/// The recognizer handles a `ShelfReader` reads with: Tesseract's or PP-OCR's pool behind one face.
package final class RecognizerPool: Sendable {
    /// The pool of the engine chosen.
    package enum Engine: Sendable {
        case tesseract(TesseractPool)
        case ppocr(PPOCRPool)
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
        }
    }

    /// Which recognizer this is.
    package var kind: RecognizerKind {
        switch engine {
        case .tesseract: .tesseract
        case .ppocr: .ppocr
        }
    }

    /// The engine and its version, for `/healthz`.
    package var info: OCREngineStatus {
        switch engine {
        case .tesseract(let pool): pool.info
        case .ppocr(let pool): pool.info
        }
    }

    /// Runs `body` with a handle checked out for the calling thread alone, then returns it to its pool.
    func withRecognizer<T>(_ body: (any StripRecognizer) -> T) throws(SpineReadingError) -> T {
        switch engine {
        case .tesseract(let pool):
            let handle = try pool.checkOut()
            defer { pool.checkIn(handle) }
            return body(handle)
        case .ppocr(let pool):
            let handle = try pool.checkOut()
            defer { pool.checkIn(handle) }
            return body(handle)
        }
    }
}
