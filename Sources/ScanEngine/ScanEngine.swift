import BookscanBase
package import ImageKit
package import ScanProtocol
package import SpineReading

/// Finds shelf rows and book spines in a shelf photo.
package struct ScanEngine: Sendable {
    /// Tunables of the engine.
    package struct Configuration: Sendable {
        /// Long side the image is reduced to (by DCT scaling, never below this) before analysis.
        package var workingLongSide: Int
        /// Whether and with what each spine's title and author are read after segmentation (the
        /// `reading_titles` stage).
        package var titles: TitleReading
        /// Dim photos' levels are stretched before detection.
        var levels = LevelStretcher()
        /// Whether the learned title decision (`TitleChoice`) decides each spine's title among its candidates once
        /// the rules have read (with a scene-text reader only). The reading lab switches it off to record the
        /// rules' titles it trains on (EngineEval --without learned_choice).
        package var decidesTitles = true

        package init(workingLongSide: Int = 1000, titles: TitleReading = .off) {
            self.workingLongSide = max(64, workingLongSide)
            self.titles = titles
        }

        /// An engine that reads with `reader` (nil: boxes only).
        package init(workingLongSide: Int = 1000, reader: ShelfReader?) {
            self.init(workingLongSide: workingLongSide, titles: reader.map(TitleReading.reader) ?? .off)
        }
    }

    package let configuration: Configuration
    /// The loaded reader of `configuration.titles`; nil: boxes only.
    private let reader: ShelfReader?
    /// The title decision; nil when it is off or the reader has no scene-text reader (Tesseract alone).
    private let titleChoice: TitleChoice?

    /// An engine for `configuration`, loading its recognizer if it names one (the language data or
    /// models take a while: make engines off the cooperative pool); throws when they cannot be loaded.
    package init(configuration: Configuration = .init()) throws(SpineReadingError) {
        self.configuration = configuration
        reader = try configuration.titles.loadedReader()
        titleChoice = configuration.decidesTitles && reader.map { $0.pool.kind != .tesseract } == true ? TitleChoice.standard : nil
        if reader != nil { TitleChoice.preload(wordLists: titleChoice != nil) }
    }

    /// The recognizer that reads titles and its versions (as `/healthz` and each result name it); nil
    /// when titles are off.
    package var readerStatus: OCREngineStatus? { reader?.pool.info }

    /// Decodes the JPEG with DCT scaling to the working size, finds rows and spines.
    /// `progress(stage, fraction)` is called on the calling thread with the overall job fraction 0...1, never decreasing,
    /// in stage order .decoding → .findingRows → .segmentingSpines → .finishing;
    /// `isCancelled()` is polled between steps; when it returns true the scan throws `ScanEngineError.canceled`.
    package func scan(
        jpeg: [UInt8], maxPixels: Int, progress: (ScanStage, Double) -> Void, isCancelled: () -> Bool
    ) throws(ScanEngineError) -> ScanResult {
        var reporter = ProgressReporter(reading: reader != nil)
        reporter.report(.decoding, 0, progress)
        if isCancelled() { throw .canceled }
        let clock = ContinuousClock()
        let start = clock.now
        // The decoded photo and the working image die with this scope: reading decodes the photo
        // again at the scale its text needs, so they would only add to the scan's peak memory.
        let orientation = EXIFOrientation.read(fromJPEG: jpeg)
        let found: Detection
        let sourceSize: (width: Int, height: Int)
        do {
            let decoded: DecodedJPEG
            do {
                decoded = try JPEGDecoder.decode(jpeg, minimumLongSide: configuration.workingLongSide, maxPixels: maxPixels)
            } catch {
                throw .image(error)
            }
            // Uploads from other clients may still carry an EXIF orientation: scan the photo as a
            // viewer shows it, and normalise boxes to that upright frame.
            let upright = decoded.image.applying(orientation)
            sourceSize =
                orientation.swapsDimensions ? (decoded.sourceHeight, decoded.sourceWidth) : (decoded.sourceWidth, decoded.sourceHeight)
            let decodeMs = (clock.now - start).inMilliseconds
            reporter.report(.decoding, ProgressReporter.decodeEnd, progress)
            found = try detect(image: upright, reporter: &reporter, progress: progress, isCancelled: isCancelled)
                .startingWith(StageTiming(stage: .decoding, milliseconds: decodeMs))
        }
        return try finish(
            found, source: .jpeg(jpeg, orientation: orientation), sourceWidth: sourceSize.width, sourceHeight: sourceSize.height,
            maxPixels: maxPixels, reporter: &reporter, progress: progress, isCancelled: isCancelled)
    }

    /// Same on an already-decoded image (sourceWidth/Height = original size the boxes normalise to).
    package func scan(
        image: PixelBuffer, sourceWidth: Int, sourceHeight: Int, progress: (ScanStage, Double) -> Void,
        isCancelled: () -> Bool
    ) throws(ScanEngineError) -> ScanResult {
        var reporter = ProgressReporter(reading: reader != nil)
        reporter.report(.decoding, 0, progress)
        if isCancelled() { throw .canceled }
        reporter.report(.decoding, ProgressReporter.decodeEnd, progress)
        let found = try detect(image: image, reporter: &reporter, progress: progress, isCancelled: isCancelled)
            .startingWith(StageTiming(stage: .decoding, milliseconds: 0))
        return try finish(
            found, source: .image(image), sourceWidth: sourceWidth, sourceHeight: sourceHeight, maxPixels: 0, reporter: &reporter,
            progress: progress, isCancelled: isCancelled)
    }

    /// Rows and spines of the working image, boxes normalised to it.
    private func detect(
        image: PixelBuffer, reporter: inout ProgressReporter, progress: (ScanStage, Double) -> Void, isCancelled: () -> Bool
    ) throws(ScanEngineError) -> Detection {
        let clock = ContinuousClock()
        var timings: [StageTiming] = []
        if isCancelled() { throw .canceled }

        // Rows.
        var start = clock.now
        reporter.report(.findingRows, ProgressReporter.decodeEnd, progress)
        let work = configuration.levels.stretched(WorkImage(image, targetLongSide: configuration.workingLongSide))
        let finder = RowFinder(image: work)
        if isCancelled() { throw .canceled }
        let fitter = RowGeometryFitter(finder: finder)
        let bands = finder.rowBands()
        var rows = fitter.fitRows(bands)
        reporter.report(.findingRows, ProgressReporter.rowsMid, progress)
        if isCancelled() { throw .canceled }
        let smoothedGx = finder.gx.boxBlurred3()
        for i in rows.indices {
            rows[i] = fitter.fitVerticalAngles(rows[i], smoothedGx: smoothedGx)
            if isCancelled() { throw .canceled }
        }
        reporter.report(.findingRows, ProgressReporter.rowsEnd, progress)
        timings.append(StageTiming(stage: .findingRows, milliseconds: (clock.now - start).inMilliseconds))

        // Spines, row by row.
        start = clock.now
        let segmenter = SpineSegmenter()
        var perRow: [[StripSegment]] = []
        let span = ProgressReporter.segmentEnd - ProgressReporter.rowsEnd
        for (i, row) in rows.enumerated() {
            let rowStart = ProgressReporter.rowsEnd + span * Double(i) / Double(rows.count)
            let rowSpan = span / Double(rows.count)
            reporter.report(.segmentingSpines, rowStart, progress)
            let analysis = segmenter.analyse(RowStrip(image: work, row: row))
            if isCancelled() { throw .canceled }
            reporter.report(.segmentingSpines, rowStart + rowSpan * 0.5, progress)
            var found: [StripSegment] = []
            let candidates = analysis.cuts.count - 1
            for k in 0..<candidates {
                if let segment = segmenter.segment(analysis, index: k) { found.append(segment) }
                if k % 8 == 7 {
                    if isCancelled() { throw .canceled }
                    reporter.report(
                        .segmentingSpines, rowStart + rowSpan * (0.5 + 0.5 * Double(k + 1) / Double(candidates)), progress)
                }
            }
            found = segmenter.joiningSplitBooks(found, analysis)
            // Stacks of lying books replace the upright slices cut through them.
            let stacks = LyingStackFinder()
            let splitter = LyingStackSplitter()
            let withStacks = splitter.splitAll(
                stacks.merge(upright: found, lying: stacks.find(analysis), height: analysis.smoothed.height), analysis)
            // Leaning books replace the upright slices cut through them.
            let leaning = LeaningBookFinder()
            perRow.append(leaning.merge(upright: withStacks, leaning: leaning.find(analysis), height: analysis.smoothed.height))
        }
        if isCancelled() { throw .canceled }
        timings.append(StageTiming(stage: .segmentingSpines, milliseconds: (clock.now - start).inMilliseconds))

        // Result in normalised coordinates.
        let assembled = ResultAssembler(imageWidth: work.width, imageHeight: work.height).assemble(rows: rows, segments: perRow)
        return Detection(
            workingWidth: work.width, workingHeight: work.height, rows: assembled.rows, spines: assembled.spines, timings: timings,
            thumbnail: ColorThumbnail(work))
    }

    /// Reads the titles of what `detect` found (when the engine has a reader) and finishes the result.
    private func finish(
        _ found: Detection, source: ShelfReader.Source, sourceWidth: Int, sourceHeight: Int, maxPixels: Int,
        reporter: inout ProgressReporter, progress: (ScanStage, Double) -> Void, isCancelled: () -> Bool
    ) throws(ScanEngineError) -> ScanResult {
        let clock = ContinuousClock()
        var timings = found.timings
        var spines = found.spines
        var rows = found.rows
        var start = clock.now
        if let reader {
            var lettering: [LetteringSpan] = []
            var lines: [RecordedLine] = []
            // The decision weighs the photo's lines, which are read only where the rules left a spine untitled
            // (reading them for a shelf the rules titled whole costs a second or more and changes little): with
            // every spine titled, the rules' titles stand (no `titleTrace`).
            var deciding = titleChoice != nil
            spines = try readTitles(
                reader, source: source, sourceWidth: sourceWidth, sourceHeight: sourceHeight, maxPixels: maxPixels,
                spines: spines, reporter: &reporter, progress: progress, isCancelled: isCancelled)
            if ReadingRule.stackReading.isOn, StackReading.isWorthTrying(spines), let stack = try readStack(reader, source: source, maxPixels: maxPixels, thumbnail: found.thumbnail, isCancelled: isCancelled),
                stack.filter({ $0.title != nil }).count > spines.filter({ $0.title != nil }).count
            {
                spines = stack
                rows = [ShelfRow(index: 0, box: NormalizedBox(x: 0, y: 0, width: 1, height: 1), spineCount: stack.count)]
                if deciding { lines = try stackLines(reader, source: source, maxPixels: maxPixels, isCancelled: isCancelled) }
            } else {
                deciding = deciding && spines.contains { $0.title == nil }
                let filled = try fillTitlesFromLines(
                    reader, source: source, maxPixels: maxPixels, spines: spines, recordingLines: deciding, isCancelled: isCancelled)
                spines = filled.spines
                lettering = filled.lettering
                lines = filled.lines
            }
            (spines, rows) = SliverVeto(imageWidth: sourceWidth, imageHeight: sourceHeight).kept(spines, rows: rows)
            (spines, rows) = LetteringJoiner().joined(spines, rows: rows, lettering: lettering)
            if deciding, let titleChoice {
                spines = reader.stageClock.timing(.decision) { titleChoice.chosen(spines, lines: lines, width: sourceWidth, height: sourceHeight) }
            }
            timings.append(StageTiming(stage: .readingTitles, milliseconds: (clock.now - start).inMilliseconds))
        }
        start = clock.now
        reporter.report(.finishing, ProgressReporter.segmentEnd, progress)
        timings.append(StageTiming(stage: .finishing, milliseconds: (clock.now - start).inMilliseconds))
        reporter.report(.finishing, 1, progress)
        return ScanResult(
            imageWidth: sourceWidth, imageHeight: sourceHeight, workingWidth: found.workingWidth, workingHeight: found.workingHeight,
            rows: rows, spines: spines, timings: timings, reader: readerStatus)
    }
}

/// What detection found in the working image: rows and spines (normalised boxes) and its stage timings.
struct Detection: Sendable {
    var workingWidth: Int
    var workingHeight: Int
    var rows: [ShelfRow]
    var spines: [Spine]
    var timings: [StageTiming]
    /// The working image's colours, for books found after detection (a stack's).
    var thumbnail: ColorThumbnail

    /// The same with `timing` as its first stage timing.
    func startingWith(_ timing: StageTiming) -> Detection {
        var out = self
        out.timings.insert(timing, at: 0)
        return out
    }
}

/// Forwards progress to the caller, keeping the fraction within 0...1 and never decreasing.
struct ProgressReporter {
    static let decodeEnd = 0.15
    static let rowsMid = 0.22
    static let rowsEnd = 0.30
    static let segmentEnd = 0.95

    private var last = 0.0
    /// With titles to read, detection's fractions shrink to end where reading starts.
    private var detectionScale = 1.0

    init(reading: Bool = false) {
        if reading { detectionScale = ScanEngine.readingStart / Self.segmentEnd }
    }

    /// Reports `fraction` (clamped, never below the previous report) through `progress`.
    mutating func report(_ stage: ScanStage, _ fraction: Double, _ progress: (ScanStage, Double) -> Void) {
        let scaled = stage == .decoding || stage == .findingRows || stage == .segmentingSpines ? fraction * detectionScale : fraction
        last = max(last, min(1, max(0, scaled)))
        progress(stage, last)
    }
}
