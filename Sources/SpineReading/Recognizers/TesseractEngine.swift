import CTesseract
import CTesseractShim
import Foundation
import ImageKit

/// One recognised word: its text, the recognizer's confidence (0–100) and box in the image it read.
struct RecognisedWord: Sendable, Hashable {
    var text: String
    var confidence: Double
    var left: Int
    var top: Int
    var right: Int
    var bottom: Int
    /// Index of the text line the word belongs to, in reading order.
    var line: Int
    /// The word's cap height in pixels, estimated from its letters (see `capHeight(of:)`) and from the
    /// ink under it (`WordInk`), the smaller of the two, so "on" and "THE" of one line compare.
    var capHeight: Double

    var height: Int { bottom - top }
    var width: Int { right - left }

    /// Whether `other` is this word, its text perhaps trimmed since (the same word is the same place).
    func isSamePlace(as other: RecognisedWord) -> Bool {
        left == other.left && top == other.top && right == other.right && bottom == other.bottom
    }

    /// Whether `other` is the same word read again over the same place (its text, and boxes that
    /// overlap by at least half of the smaller): the sparse-text layout sometimes finds one block twice.
    func isRepeat(of other: RecognisedWord) -> Bool {
        guard text == other.text else { return false }
        let overlapX = min(right, other.right) - max(left, other.left), overlapY = min(bottom, other.bottom) - max(top, other.top)
        guard overlapX > 0, overlapY > 0 else { return false }
        return 2 * overlapX * overlapY >= min(width * height, other.width * other.height)
    }

    /// The cap height that a word's letters (each its character and its box's height) show: a capital,
    /// digit or ascender letter shows it directly, an x-height letter about 1/1.38 of it (DejaVu and
    /// Liberation: x-height ≈ 0.72 of the cap height), a descender letter about all of it; marks, "i"
    /// and "j" say nothing. The median of what the letters say; nil when none says anything.
    static func capHeight(of letters: [(Character, Double)]) -> Double? {
        var estimates: [Double] = []
        for (c, h) in letters where h > 0 {
            if c.isUppercase || c.isNumber || "bdfhklt".contains(c) {
                estimates.append(h)
            } else if "acemnorsuvwxz".contains(c) {
                estimates.append(h * 1.38)
            } else if "gpqy".contains(c) {
                estimates.append(h)
            }
        }
        guard !estimates.isEmpty else { return nil }
        estimates.sort()
        return estimates.count % 2 == 1
            ? estimates[estimates.count / 2] : (estimates[estimates.count / 2 - 1] + estimates[estimates.count / 2]) / 2
    }
}

/// One Tesseract handle (LSTM only, with the LSTM's word lists; the legacy engine's are off). Not thread-safe: used by one thread at a time;
/// `TesseractPool` hands each out exclusively and keeps it for reuse.
final class TesseractEngine: StripRecognizer, @unchecked Sendable {
    private let handle: OpaquePointer

    /// Line images Tesseract has written as uncompressed PNG in this process (`CTesseractShim`: its
    /// LSTM receives every line through an in-memory PNG; 0 when the shim does not interpose).
    static var uncompressedLineImages: UInt64 { bs_uncompressed_png_writes() }

    /// Page-segmentation modes the reader uses (their raw values are Tesseract's).
    typealias Layout = StripLayout

    /// Loads the language; throws `.languageDataMissing` when Tesseract cannot.
    init(settings: OCRSettings) throws(SpineReadingError) {
        // Checked first so a missing file is our one clear line, not Tesseract's stderr paragraph.
        if let place = settings.dataPath ?? ProcessInfo.processInfo.environment["TESSDATA_PREFIX"],
            !FileManager.default.fileExists(atPath: (place as NSString).appendingPathComponent(settings.language + ".traineddata"))
        {
            throw .languageDataMissing(language: settings.language, dataPath: place)
        }
        guard let api = TessBaseAPICreate() else { throw .languageDataMissing(language: settings.language, dataPath: settings.dataPath) }
        // These variables only take effect when passed at Init. The `load_*_dawg` ones keep the legacy
        // engine's word lists out; the LSTM's own (lstm-word/punc/number-dawg) stay: `lstm_use_matrix`
        // 0 drops them and saves 3.6 MiB, but exact titles fell from 24.5 to 21.0 % on the 40 photos.
        let variables: [(String, String)] = [
            ("load_system_dawg", "0"), ("load_freq_dawg", "0"), ("load_unambig_dawg", "0"),
            ("load_punc_dawg", "0"), ("load_number_dawg", "0"), ("load_bigram_dawg", "0"),
            ("user_defined_dpi", "300"), ("debug_file", "/dev/null"),
            // Strips arrive dark-on-light already: no second, inverted recognition of weak lines.
            ("tessedit_do_invert", "0"),
        ]
        Self.serialiseOpenMPOnThisThread()
        Self.silenceLeptonica
        var names = variables.map { strdup($0.0) }
        var values = variables.map { strdup($0.1) }
        defer {
            names.forEach { free($0) }
            values.forEach { free($0) }
        }
        let status = names.withUnsafeMutableBufferPointer { n in
            values.withUnsafeMutableBufferPointer { v in
                TessBaseAPIInit4(
                    api, settings.dataPath, settings.language, OEM_LSTM_ONLY, nil, 0, n.baseAddress, v.baseAddress,
                    variables.count, 0)
            }
        }
        guard status == 0 else {
            TessBaseAPIDelete(api)
            throw .languageDataMissing(language: settings.language, dataPath: settings.dataPath)
        }
        handle = api
    }

    /// Debian's libtesseract uses OpenMP inside the LSTM (teams of 4 per forward pass); with a handle
    /// per reading thread on few cores those teams only oversubscribe and spin (measured: twice the
    /// wall time, a third of it in the kernel). `omp_set_max_active_levels(0)` makes every parallel
    /// region run on the calling thread alone. In libgomp (GCC ≥ 11) that setting belongs to the
    /// calling thread, so it is applied on each reading thread before it reads; nil when not linked.
    private static let setMaxActiveLevels: (@convention(c) (Int32) -> Void)? = {
        guard let symbol = dlsym(nil, "omp_set_max_active_levels") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Void).self)
    }()

    /// Serialises OpenMP on the calling thread (see `setMaxActiveLevels`); cheap, idempotent.
    private static func serialiseOpenMPOnThisThread() {
        setMaxActiveLevels?(0)
    }

    /// Leptonica (Tesseract's image library) writes its internal complaints to stderr, e.g. "Error in
    /// pixScaleAreaMap: pixd too small" for a sliver of a line; they mean nothing to a user of the
    /// scan, whose terminal they would clutter. Silenced once per process (L_SEVERITY_NONE).
    private static let silenceLeptonica: Void = {
        typealias SetSeverity = @convention(c) (Int32) -> Int32
        if let symbol = dlsym(nil, "setMsgSeverity") {
            _ = unsafeBitCast(symbol, to: SetSeverity.self)(6)
        }
    }()

    /// The letters of the word `iterator` stands on, each with its box's height (walked on a copy).
    private static func letterHeights(_ iterator: OpaquePointer) -> [(Character, Double)] {
        guard let symbols = TessResultIteratorCopy(iterator) else { return [] }
        defer { TessResultIteratorDelete(symbols) }
        let page = TessResultIteratorGetPageIterator(symbols)
        var heights: [(Character, Double)] = []
        repeat {
            var l: Int32 = 0, t: Int32 = 0, r: Int32 = 0, b: Int32 = 0
            if TessPageIteratorBoundingBox(page, RIL_SYMBOL, &l, &t, &r, &b) != 0, let raw = TessResultIteratorGetUTF8Text(symbols, RIL_SYMBOL) {
                if let c = String(cString: raw).first { heights.append((c, Double(b - t))) }
                TessDeleteText(raw)
            }
            if TessPageIteratorIsAtFinalElement(page, RIL_WORD, RIL_SYMBOL) != 0 { break }
        } while TessResultIteratorNext(symbols, RIL_SYMBOL) != 0
        return heights
    }

    deinit {
        TessBaseAPIEnd(handle)
        TessBaseAPIDelete(handle)
    }

    /// Tesseract reads a strip differently in each page-segmentation mode.
    var distinguishesLayouts: Bool { true }

    /// Tesseract's confidences tell misread lettering: no word list is asked.
    var lexicon: TesseractLexicon? { nil }

    /// The Tesseract library version.
    static var version: String { TessVersion().map { String(cString: $0) } ?? "unknown" }

    /// Reads a gray image (1 byte per pixel) and returns its words in reading order.
    func read(_ image: GrayImage, layout: Layout) -> [RecognisedWord] {
        Self.serialiseOpenMPOnThisThread()
        TessBaseAPISetPageSegMode(handle, TessPageSegMode(UInt32(layout.rawValue)))
        image.pixels.withUnsafeBufferPointer { buffer in
            TessBaseAPISetImage(handle, buffer.baseAddress, Int32(image.width), Int32(image.height), 1, Int32(image.width))
        }
        defer { TessBaseAPIClear(handle) }
        guard TessBaseAPIRecognize(handle, nil) == 0, let iterator = TessBaseAPIGetIterator(handle) else { return [] }
        defer { TessResultIteratorDelete(iterator) }
        var words: [RecognisedWord] = []
        var line = -1
        let page = TessResultIteratorGetPageIterator(iterator)
        repeat {
            if TessPageIteratorIsAtBeginningOf(page, RIL_TEXTLINE) != 0 { line += 1 }
            guard let raw = TessResultIteratorGetUTF8Text(iterator, RIL_WORD) else { continue }
            let text = String(cString: raw)
            TessDeleteText(raw)
            var l: Int32 = 0, t: Int32 = 0, r: Int32 = 0, b: Int32 = 0
            guard TessPageIteratorBoundingBox(page, RIL_WORD, &l, &t, &r, &b) != 0 else { continue }
            let confidence = Double(TessResultIteratorConfidence(iterator, RIL_WORD))
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { continue }
            // Tesseract's letter boxes often span the whole strip; the ink under the word never reaches
            // higher than the letters do, so the smaller of the two is the word's size.
            let fromLetters = RecognisedWord.capHeight(of: Self.letterHeights(iterator))
            let fromInk = !ReadingRule.wordInk.isOn ? nil : WordInk.inkHeight(
                image, left: Int(l), top: Int(t), right: Int(r), bottom: Int(b), darkOnly: confidence < WordInk.measuredConfidence)
                .flatMap { WordInk.capHeight(ink: $0, text: trimmed) }
            let capHeight = [fromLetters, fromInk].compactMap { $0 }.min() ?? Double(b - t)
            words.append(
                RecognisedWord(
                    text: trimmed, confidence: confidence, left: Int(l), top: Int(t), right: Int(r), bottom: Int(b), line: max(0, line),
                    capHeight: max(1, capHeight)))
        } while TessResultIteratorNext(iterator, RIL_WORD) != 0
        return words
    }
}
