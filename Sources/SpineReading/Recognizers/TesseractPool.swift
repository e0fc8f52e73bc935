package import ScanProtocol
import Synchronization

/// Tesseract handles created once and reused: a scan checks handles out for its reading threads and
/// returns them; a handle is never shared between threads and never made per spine.
package final class TesseractPool: Sendable {
    /// What the pool loads.
    package let settings: OCRSettings
    /// The engine, version and language, for `/healthz`.
    package let info: OCREngineStatus
    private let idle: Mutex<[TesseractEngine]>

    /// Loads one handle to prove the language data is there; throws `.languageDataMissing` otherwise.
    package init(settings: OCRSettings = .standard) throws(SpineReadingError) {
        let first = try TesseractEngine(settings: settings)
        self.settings = settings
        self.info = OCREngineStatus(engine: "tesseract", version: TesseractEngine.version, language: settings.language)
        self.idle = Mutex([first])
    }

    /// An idle handle, or a new one when all are in use.
    func checkOut() throws(SpineReadingError) -> TesseractEngine {
        if let engine = idle.withLock({ $0.popLast() }) { return engine }
        return try TesseractEngine(settings: settings)
    }

    /// Returns a handle for the next scan.
    func checkIn(_ engine: TesseractEngine) {
        idle.withLock { $0.append(engine) }
    }

    /// How many handles wait idle (for tests: reuse, not one per spine).
    package var idleCount: Int { idle.withLock { $0.count } }
}
