import CPPOCR
import Foundation
import ImageKit

/// One libppocr handle (PP-OCRv6 small detection + recognition on the CPU). Not thread-safe: one reading
/// thread uses it at a time (`PPOCRPool` hands each out exclusively and keeps it for reuse).
final class PPOCRRecognizer: StripRecognizer, @unchecked Sendable {
    private let handle: OpaquePointer
    /// The word list titles are checked against (PP-OCR's confidences stay high on misread lettering).
    let lexicon: TesseractLexicon?

    /// Detection's box threshold: the mean text probability a box needs to be kept. libppocr's 0.45 drops
    /// faint and slanted lines; on bookscan's straightened strips 0.15 keeps them (the research spike on
    /// the real set: 51.4 → 59.9 % of titles inside a line, whole photos).
    static let detectionBoxThreshold: Float = 0.15
    /// The recognition height PP-OCRv6 small was trained at.
    static let recognitionHeight: Int32 = 48

    /// Loads the models; throws `.recognizerModelsMissing` when a file is not there and
    /// `.recognizerLoadFailed` when libppocr cannot load it.
    init(models: PPOCRModels, lexicon: TesseractLexicon?) throws(SpineReadingError) {
        try models.checkPresent()
        Self.turnActivationPoolOff
        var options = ppocr_options()
        ppocr_options_init(&options)
        options.backend = PPOCR_BACKEND_CPU
        options.det_box_threshold = Self.detectionBoxThreshold
        options.rec_height = Self.recognitionHeight
        // bookscan reads spines on threads of its own, one handle each: no threads inside a handle.
        options.rec_parallelism = 1
        options.batch_preprocess_parallelism = 1
        options.image_batch_parallelism = 1
        guard let created = ppocr_create(models.detection, models.recognition, models.dictionary, &options) else {
            throw .recognizerLoadFailed(engine: RecognizerKind.ppocr.rawValue, reason: Self.lastError)
        }
        handle = created
        self.lexicon = lexicon
    }

    deinit {
        ppocr_destroy(handle)
    }

    /// libppocr 5.0.0a5 recycles its tensors' buffers through an activation pool; with handles reading and being
    /// destroyed on several threads at once it corrupts the heap (the reading suites aborted in `ppocr_destroy`,
    /// "munmap_chunk(): invalid pointer", in 3 of 5 runs on an AVX-512 machine; in none of 6 with the pool off).
    /// Its own switch turns the pool off, once, before the first handle is made.
    private static let turnActivationPoolOff: Void = {
        setenv("PPOCR_DISABLE_ACTIVATION_POOL", "1", 1)
    }()

    /// PP-OCR detects its own lines: the layout hint changes nothing.
    var distinguishesLayouts: Bool { false }

    /// libppocr's message for the last failure on this thread.
    private static var lastError: String {
        ppocr_last_error().map { String(cString: $0) } ?? "unknown error"
    }

    /// Reads the strip: every line PP-OCR detects, split into words at spaces (each word's box its share of
    /// the line's box by letters), lines in reading order (top to bottom, then left to right).
    func read(_ image: GrayImage, layout: StripLayout) -> [RecognisedWord] {
        let lines = textLines(image)
            .sorted { $0.top != $1.top ? $0.top < $1.top : $0.left < $1.left }
        var words: [RecognisedWord] = []
        for (index, line) in lines.enumerated() {
            words += line.words(line: index, in: image)
        }
        return words
    }

    /// Every text line PP-OCR detects and reads on `image`, in its order, with the line's four corners; with
    /// `keepingUnread` also the lines it found but read nothing on (standing lettering read upright).
    func textLines(_ image: GrayImage, keepingUnread: Bool = false) -> [PPOCRTextLine] {
        guard image.width > 0, image.height > 0 else { return [] }
        var rgb = [UInt8](repeating: 0, count: image.width * image.height * 3)
        for (i, value) in image.pixels.enumerated() {
            rgb[3 * i] = value
            rgb[3 * i + 1] = value
            rgb[3 * i + 2] = value
        }
        var result = ppocr_result()
        let status = rgb.withUnsafeBufferPointer { buffer in
            var input = ppocr_image(width: Int32(image.width), height: Int32(image.height), rgb: buffer.baseAddress)
            return ppocr_recognize(handle, &input, &result)
        }
        defer { ppocr_result_free(&result) }
        guard status == PPOCR_OK, let items = result.items else { return [] }
        return UnsafeBufferPointer(start: items, count: result.count).compactMap { PPOCRTextLine($0, keepingEmpty: keepingUnread) }
    }

    /// Recognition only: reads each region of `sheet` as a detected line (no detector run), batched by width;
    /// one reading per region, in order, nil where nothing was read.
    func readRegions(_ sheet: LineSheet) -> [PPOCRTextLine?] {
        var corners: [ppocr_point] = []
        corners.reserveCapacity(4 * sheet.regions.count)
        for region in sheet.regions {
            let top = Float(region.top), bottom = Float(region.top + region.height), right = Float(region.width)
            corners += [ppocr_point(x: 0, y: top), ppocr_point(x: right, y: top), ppocr_point(x: right, y: bottom), ppocr_point(x: 0, y: bottom)]
        }
        var result = ppocr_result()
        let status = sheet.rgb.withUnsafeBufferPointer { buffer in
            corners.withUnsafeBufferPointer { points in
                var input = ppocr_image(width: Int32(sheet.width), height: Int32(sheet.height), rgb: buffer.baseAddress)
                return ppocr_recognize_regions(handle, &input, points.baseAddress, sheet.regions.count, &result)
            }
        }
        defer { ppocr_result_free(&result) }
        guard status == PPOCR_OK, let items = result.items, result.count == sheet.regions.count else {
            return sheet.regions.map { _ in nil }
        }
        return UnsafeBufferPointer(start: items, count: result.count).map { PPOCRTextLine($0) }
    }
}

/// One text line libppocr read, as it gives it: text, confidence (0–1), upright box and the four corners
/// of the line as detected (top-left, top-right, bottom-right, bottom-left in reading order).
struct PPOCRTextLine: Sendable {
    var text: String
    var confidence: Double
    var left: Int
    var top: Int
    var width: Int
    var height: Int
    var corners: [(x: Double, y: Double)]

    init(text: String, confidence: Double, left: Int, top: Int, width: Int, height: Int, corners: [(x: Double, y: Double)]) {
        self.text = text
        self.confidence = confidence
        self.left = left
        self.top = top
        self.width = width
        self.height = height
        self.corners = corners
    }

    /// The line libppocr gives; nil when it has no box, or no text unless `keepingEmpty`.
    init?(_ item: ppocr_text_box, keepingEmpty: Bool = false) {
        text = item.text.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
        guard keepingEmpty || !text.isEmpty, item.bbox_w > 0, item.bbox_h > 0 else { return nil }
        confidence = Double(item.confidence)
        left = Int(item.bbox_x)
        top = Int(item.bbox_y)
        width = Int(item.bbox_w)
        height = Int(item.bbox_h)
        let box = item.box
        corners = [box.0, box.1, box.2, box.3].map { (x: Double($0.x), y: Double($0.y)) }
    }

    /// The line's thickness across its reading direction (pixels): the mean of its two short sides.
    var thickness: Double {
        func distance(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
            ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
        }
        return (distance(corners[1], corners[2]) + distance(corners[3], corners[0])) / 2
    }
}

extension PPOCRTextLine {
    /// The line's words, each with the line's confidence on Tesseract's 0–100 scale and a box that is its
    /// share of the line by letters. PP-OCR reads lines, not word sizes: every word gets the line's cap height,
    /// measured from the ink under the whole line (as Tesseract's words have it), so a line stays one size.
    func words(line: Int, in image: GrayImage) -> [RecognisedWord] {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let letters = parts.reduce(0) { $0 + $1.count } + max(0, parts.count - 1)
        guard letters > 0 else { return [] }
        let bottom = top + height
        let ink = WordInk.inkHeight(image, left: left, top: top, right: left + width, bottom: bottom, darkOnly: false)
            .flatMap { WordInk.capHeight(ink: $0, text: text) }
        let capHeight = max(1, ink ?? Double(height) * 0.7)
        let perLetter = Double(width) / Double(letters)
        var start = 0
        var out: [RecognisedWord] = []
        for part in parts {
            let l = left + Int((Double(start) * perLetter).rounded())
            let r = max(l + 1, left + Int((Double(start + part.count) * perLetter).rounded()))
            start += part.count + 1
            out.append(
                RecognisedWord(
                    text: part, confidence: 100 * confidence, left: l, top: top, right: r, bottom: bottom, line: line,
                    capHeight: capHeight))
        }
        return out
    }
}
