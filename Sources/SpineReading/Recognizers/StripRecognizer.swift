import ImageKit

/// How the lettering of a strip is laid out, as the reader asks a recognizer to look for it.
enum StripLayout: Int32, Sendable {
    /// One block of lines (mode 6).
    case singleBlock = 6
    /// One line (mode 7).
    case singleLine = 7
    /// Sparse text: every block of lettering found on its own, in no assumed layout (mode 11).
    case sparseText = 11
}

/// The seam between the spine reader and an OCR engine: turns a prepared, upright strip (dark lettering
/// on light, text running left to right) into words with confidences (0–100) and boxes, in reading order.
/// A handle is used by one reading thread at a time (`RecognizerPool` hands them out).
protocol StripRecognizer: AnyObject, Sendable {
    /// The words read on `image`; `layout` is a hint an engine may ignore (PP-OCR finds its own lines).
    func read(_ image: GrayImage, layout: StripLayout) -> [RecognisedWord]
    /// Whether `layout` changes what is read (a second reading in another layout is worth its time).
    var distinguishesLayouts: Bool { get }
    /// The word list a title is checked against when the engine's confidences do not tell misread
    /// lettering (nil: they do).
    var lexicon: TesseractLexicon? { get }
}
