import ScanEngine
import ScanProtocol
import SpineReading

/// The OCR side of a service start: loads the chosen recognizer once (the pooled Tesseract or PP-OCR
/// handles every scan checks out) or refuses to start with its `SpineReadingError`.
struct OCRStartup: Sendable {
    /// The engine configuration with its title reader (none when the configuration turns OCR off).
    let engine: ScanEngine.Configuration
    /// What `/healthz` reports.
    let status: OCREngineStatus?

    init(_ configuration: ServiceConfiguration) throws(SpineReadingError) {
        var engine = configuration.engine
        guard let settings = configuration.ocr else {
            self.engine = engine
            self.status = nil
            return
        }
        if engine.reader == nil {
            let kind: RecognizerKind
            if let chosen = configuration.recognizer { kind = chosen } else { kind = try RecognizerKind.configured() }
            engine.reader = ShelfReader(pool: try RecognizerPool(kind: kind, settings: settings))
        }
        self.engine = engine
        self.status = engine.reader?.pool.info
    }
}
