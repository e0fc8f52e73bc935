/// The OCR engine a service reads titles with, as `/healthz` reports it.
public struct OCREngineStatus: Codable, Sendable, Hashable {
    /// The engine, e.g. "tesseract".
    public var engine: String
    /// Its library version, e.g. "5.3.0".
    public var version: String
    /// The language data loaded, e.g. "eng".
    public var language: String

    public init(engine: String, version: String, language: String) {
        self.engine = engine
        self.version = version
        self.language = language
    }
}
