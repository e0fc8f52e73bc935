package import ScanProtocol
import Synchronization

/// libppocr handles created once and reused, one per reading thread (as `TesseractPool`): the models are
/// loaded when the pool is made (proving they are there) and a new handle only when all are in use.
package final class PPOCRPool: Sendable {
    /// Where the models are.
    package let models: PPOCRModels
    /// The engine and model versions, for `/healthz`.
    package let info: OCREngineStatus
    private let idle: Mutex<[PPOCRRecognizer]>
    /// The word list every handle checks titles against, loaded once.
    private let lexicon: TesseractLexicon

    /// Loads one handle and the word list of `settings`' language; throws `.recognizerModelsMissing`,
    /// `.recognizerLoadFailed` or `.languageDataMissing` when it cannot.
    package init(models: PPOCRModels = .configured(), settings: OCRSettings = .standard) throws(SpineReadingError) {
        let lexicon = try TesseractLexicon(settings: settings)
        let first = try PPOCRRecognizer(models: models, lexicon: lexicon)
        self.lexicon = lexicon
        self.models = models
        self.info = OCREngineStatus(engine: RecognizerKind.ppocr.rawValue, version: PPOCRModels.version, language: "ch+en")
        self.idle = Mutex([first])
    }

    /// An idle handle, or a new one when all are in use.
    func checkOut() throws(SpineReadingError) -> PPOCRRecognizer {
        if let recognizer = idle.withLock({ $0.popLast() }) { return recognizer }
        return try PPOCRRecognizer(models: models, lexicon: lexicon)
    }

    /// Returns a handle for the next scan.
    func checkIn(_ recognizer: PPOCRRecognizer) {
        idle.withLock { $0.append(recognizer) }
    }

    /// How many handles wait idle.
    package var idleCount: Int { idle.withLock { $0.count } }
}
