import BookscanBase
// EngineEval: runs ScanEngine over a folder of JPEGs and writes evaluate.py prediction files.
//
//     EngineEval --images DIR --out PREDDIR [--long-side N] [--no-ocr] [--threads N] [--recognizer tesseract|ppocr|combined] [--lines] [--without learned_choice]
//
// --without learned_choice leaves the learned title decision out (the titles are the rules'): the lab's cache is made so.
// --without RULE switches one of the reading's rules off (`ReadingRule`: given_names, edition_lines, name_trim,
// stack_reading, title_vote, merged_spine_split, line_check, label_pieces, deblur, word_ink, lettering_join,
// enlarged_look, other_layout, word_rescue, one_word_line), for the
// ablation table; repeat it for several.
// --lines also records every text line PP-OCR reads on the whole photo (`ShelfReader.recordedLines`) in each
// prediction file ("lines", with the photo's "width" and "height"): the reading lab's cache (Tools/reading-lab).
//
// The recognizer defaults to BOOKSCAN_RECOGNIZER, else the engine's default (`RecognizerKind.standard`).
// Each book carries box, polygon, confidence, pose, row, colour ([r, g, b]) and (unless --no-ocr) title,
// author, text, textConfidence, orientation; each file the wall time of the whole scan (time_ms) and of
// reading titles (ocr_ms).
import Foundation
import ImageKit
import ScanEngine
import ScanProtocol
import SpineReading

/// Command-line options.
struct Options {
    var images = ""
    var out = ""
    var longSide = 1000
    var ocr = true
    /// Record the photo's text lines beside the books (the reading lab's cache).
    var lines = false
    /// Reading stages switched off (`TitleTrace.Stage` raw values).
    var without: Set<TitleTrace.Stage> = []
    /// Reading rules switched off (`ReadingRule` raw values).
    var rulesOff: Set<ReadingRule> = []
    var threads = 2
    /// nil: `RecognizerKind.configured()`.
    var recognizer: RecognizerKind?

    static func parse(_ args: [String]) -> Options? {
        var o = Options()
        var i = 1
        while i < args.count {
            let key = args[i]
            if key == "--no-ocr" || key == "--lines" {
                if key == "--no-ocr" { o.ocr = false } else { o.lines = true }
                i += 1
                continue
            }
            guard i + 1 < args.count else { return nil }
            let value = args[i + 1]
            switch key {
            case "--images": o.images = value
            case "--out": o.out = value
            case "--long-side": o.longSide = Int(value) ?? o.longSide
            case "--threads": o.threads = Int(value) ?? o.threads
            case "--without":
                if let stage = TitleTrace.Stage(rawValue: value) {
                    o.without.insert(stage)
                } else if let rule = ReadingRule(rawValue: value) {
                    o.rulesOff.insert(rule)
                } else {
                    return nil
                }
            case "--recognizer":
                guard let kind = RecognizerKind(rawValue: value) else { return nil }
                o.recognizer = kind
            default: return nil
            }
            i += 2
        }
        return o.images.isEmpty || o.out.isEmpty ? nil : o
    }
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    guard !values.isEmpty else { return 0 }
    let s = values.sorted()
    let pos = p / 100 * Double(s.count - 1)
    let lo = Int(pos), hi = min(s.count - 1, lo + 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - Double(lo))
}


func fmt(_ v: Double) -> String { String(format: "%.1f", v) }

guard let options = Options.parse(CommandLine.arguments) else {
    FileHandle.standardError.write(Data("usage: EngineEval --images DIR --out PREDDIR [--long-side N] [--no-ocr] [--threads N] [--recognizer tesseract|ppocr|combined] [--lines] [--without learned_choice|\(ReadingRule.allCases.map(\.rawValue).joined(separator: "|"))]...\n".utf8))
    exit(2)
}
// The rules are read once per process from the environment (`ReadingRule.switchedOff`): set it before any reading.
if !options.rulesOff.isEmpty {
    setenv(ReadingRule.environmentKey, options.rulesOff.map(\.rawValue).sorted().joined(separator: ","), 1)
    print("rules off: \(ReadingRule.switchedOff.map(\.rawValue).sorted().joined(separator: ", "))")
}
let fm = FileManager.default
do {
    try fm.createDirectory(atPath: options.out, withIntermediateDirectories: true)
} catch {
    FileHandle.standardError.write(Data("cannot create \(options.out): \(error)\n".utf8))
    exit(1)
}
let names = ((try? fm.contentsOfDirectory(atPath: options.images)) ?? [])
    .filter { $0.lowercased().hasSuffix(".jpg") || $0.lowercased().hasSuffix(".jpeg") }
    .sorted()
var reader: ShelfReader?
/// The thread time of each reading stage, per photo (`stage_ms`).
let stageClock = ReadingStageClock()
if options.ocr {
    do {
        let kind = try options.recognizer ?? RecognizerKind.configured()
        reader = ShelfReader(pool: try RecognizerPool(kind: kind), threads: options.threads, stageClock: stageClock)
        print("recognizer \(kind.rawValue)")
    } catch {
        FileHandle.standardError.write(Data("EngineEval: \(error)\n".utf8))
        exit(1)
    }
}
let engine: ScanEngine
do {
    var configuration = ScanEngine.Configuration(workingLongSide: options.longSide, reader: reader)
    configuration.decidesTitles = !options.without.contains(.learnedChoice)
    engine = try ScanEngine(configuration: configuration)
} catch {
    FileHandle.standardError.write(Data("EngineEval: \(error)\n".utf8))
    exit(1)
}
// The heap as the service's workers set it (`ScanWorkers.run`), so memory figures are the product's.
HeapPolicy.configure()
/// A field of /proc/self/status in kB (VmRSS, VmHWM).
func statusKB(_ field: String) -> Int? {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }) else { return nil }
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
}
// What the process holds before any scan: the Swift runtime, Foundation, the C libraries.
let residentBefore = statusKB("VmRSS")
var totals: [Double] = [], detects: [Double] = [], decodes: [Double] = [], ocrs: [Double] = []
let clock = ContinuousClock()
for name in names {
    let path = (options.images as NSString).appendingPathComponent(name)
    // The file's bytes once, as the service holds an upload (not a `Data` beside a copy of it).
    guard let bytes = fm.contents(atPath: path).map({ [UInt8]($0) }) else {
        print("\(name): cannot read")
        continue
    }
    let start = clock.now
    let result: ScanResult
    do {
        result = try engine.scan(jpeg: bytes, maxPixels: 100_000_000, progress: { _, _ in }, isCancelled: { false })
    } catch {
        print("\(name): failed: \(error)")
        continue
    }
    let total = (clock.now - start).inMilliseconds
    HeapPolicy.releaseFreed()  // as a service worker does once the result is out
    let decode = result.timings.first { $0.stage == .decoding }?.milliseconds ?? 0
    let ocr = result.timings.first { $0.stage == .readingTitles }?.milliseconds ?? 0
    let detect = result.timings.filter { $0.stage != .decoding && $0.stage != .readingTitles }.reduce(0) { $0 + $1.milliseconds }
    totals.append(total); detects.append(detect); decodes.append(decode); ocrs.append(ocr)
    let books: [[String: Any]] = result.spines.map { spine in
        var book: [String: Any] = [
            "box": spine.box.pixels(width: result.imageWidth, height: result.imageHeight),
            "polygon": spine.polygon.pixels(width: result.imageWidth, height: result.imageHeight),
            "confidence": spine.confidence, "pose": spine.pose.rawValue, "row": spine.row,
            "color": [Int(spine.color.r), Int(spine.color.g), Int(spine.color.b)],
        ]
        if let title = spine.title { book["title"] = title }
        if let author = spine.author { book["author"] = author }
        if let text = spine.text { book["text"] = text }
        if let c = spine.textConfidence { book["textConfidence"] = c }
        if let o = spine.orientation { book["orientation"] = o.rawValue }
        if let trace = spine.titleTrace, let object = try? JSONSerialization.jsonObject(with: JSONEncoder().encode(trace)) {
            book["titleTrace"] = object
        }
        return book
    }
    var json: [String: Any] = ["books": books, "time_ms": total, "decode_ms": decode, "detect_ms": detect, "ocr_ms": ocr]
    let stages = stageClock.take()
    json["stage_ms"] = Dictionary(uniqueKeysWithValues: stages.map { ($0.key.rawValue, $0.value) })
    if options.lines, let reader {
        do {
            let lines = try reader.recordedLines(.jpeg(bytes, orientation: EXIFOrientation.read(fromJPEG: bytes)), maxPixels: 100_000_000) ?? []
            json["lines"] = try JSONSerialization.jsonObject(with: JSONEncoder().encode(lines))
            json["width"] = result.imageWidth
            json["height"] = result.imageHeight
        } catch {
            print("\(name): cannot read its lines: \(error)")
        }
    }
    let base = (name as NSString).deletingPathExtension
    let outPath = (options.out as NSString).appendingPathComponent(base + ".json")
    do {
        let encoded = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
        try encoded.write(to: URL(fileURLWithPath: outPath))
    } catch {
        print("\(name): cannot write prediction: \(error)")
    }
    print("\(name) \(result.imageWidth)x\(result.imageHeight) work \(result.workingWidth)x\(result.workingHeight) "
        + "rows \(result.rows.count) spines \(result.spines.count) decode \(fmt(decode)) ms detect \(fmt(detect)) ms "
        + "(" + result.timings.filter { $0.stage != .decoding }.map { "\($0.stage.rawValue) \(fmt($0.milliseconds))" }.joined(separator: ", ")
        + ") reading thread time (" + ReadingStageClock.Stage.allCases.map { "\($0.rawValue) \(fmt(stages[$0] ?? 0))" }.joined(separator: ", ")
        + ") total \(fmt(total)) ms")
}
// Peak resident memory of the whole process (VmHWM), and how much of it the scans added over what the
// process held before the first one (the Tesseract handles are made by the first scan and counted in it).
if let peak = statusKB("VmHWM") {
    let added = residentBefore.map { "; before the first scan VmRSS \($0) kB, the scans added \(peak - $0) kB" } ?? ""
    print("peak memory VmHWM \(peak) kB" + added)
}
print("images \(totals.count): total median \(fmt(percentile(totals, 50))) ms p90 \(fmt(percentile(totals, 90))) ms; "
    + "decode median \(fmt(percentile(decodes, 50))) ms; ocr median \(fmt(percentile(ocrs, 50))) ms; detect median \(fmt(percentile(detects, 50))) ms p90 \(fmt(percentile(detects, 90))) ms")
