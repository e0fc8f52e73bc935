import ImageKit
import ScanProtocol
import SpineReading

extension ScanEngine {
    /// Job fraction where reading titles starts when a reader is configured (detection takes the part before).
    static let readingStart = 0.40

    /// The photo read again as a horizontal stack (`StackReading`): its books as spines, nil when the
    /// reader could not read it; cancellation throws `.canceled`.
    func readStack(
        _ reader: ShelfReader, source: ShelfReader.Source, maxPixels: Int, thumbnail: ColorThumbnail, isCancelled: () -> Bool
    ) throws(ScanEngineError) -> [Spine]? {
        if isCancelled() { throw .canceled }
        let books: [StackBook]?
        do {
            books = try reader.readStack(source, maxPixels: maxPixels, isCancelled: isCancelled)
        } catch {
            return nil
        }
        guard let books else { throw .canceled }
        return StackReading.spines(books, thumbnail: thumbnail)
    }

    /// The `reading_titles` stage: reads every spine, reporting n of N as the job fraction moves from
    /// `readingStart` to `ProgressReporter.segmentEnd`. A photo the reader cannot decode again keeps
    /// its books without titles; cancellation throws `.canceled`.
    func readTitles(
        _ reader: ShelfReader, source: ShelfReader.Source, sourceWidth: Int, sourceHeight: Int, maxPixels: Int,
        spines: [Spine], reporter: inout ProgressReporter, progress: (ScanStage, Double) -> Void, isCancelled: () -> Bool
    ) throws(ScanEngineError) -> [Spine] {
        let span = ProgressReporter.segmentEnd - Self.readingStart
        reporter.report(.readingTitles, Self.readingStart, progress)
        let outlines = spines.map(\.outline)
        let texts: [SpineText]?
        do {
            var local = reporter
            texts = try reader.read(
                source, sourceWidth: sourceWidth, sourceHeight: sourceHeight, spines: outlines, maxPixels: maxPixels,
                progress: { done, total in local.report(.readingTitles, Self.readingStart + span * Double(done) / Double(total), progress) },
                isCancelled: isCancelled)
            reporter = local
        } catch {
            return spines
        }
        guard let texts else { throw .canceled }
        var out = spines
        for i in out.indices where i < texts.count {
            let t = texts[i]
            out[i].title = t.title
            out[i].author = t.author
            out[i].text = t.text
            out[i].textConfidence = t.text == nil ? nil : t.confidence
            out[i].orientation = t.orientation
        }
        return out
    }

    /// Titles from the whole photo's text lines for the spines reading gave none, and the titles reading gave
    /// checked against those lines (`ShelfReader.fillTitlesFromLines`), a box its lines show holds several books
    /// parted into them (indexed again with the rows' counts by `SliverVeto`, which runs next), with where the
    /// lettering of the photo's standing lines lies and (`recordingLines`) the lines read, for `TitleChoice`; the
    /// spines unchanged and no lettering when the reader cannot;
    /// cancellation throws `.canceled`.
    func fillTitlesFromLines(
        _ reader: ShelfReader, source: ShelfReader.Source, maxPixels: Int, spines: [Spine], recordingLines: Bool, isCancelled: () -> Bool
    ) throws(ScanEngineError) -> (spines: [Spine], lettering: [LetteringSpan], lines: [RecordedLine]) {
        if isCancelled() { throw .canceled }
        let outlines = spines.map(\.outline)
        let texts = spines.map {
            SpineText(title: $0.title, author: $0.author, text: $0.text, confidence: $0.textConfidence ?? 0, orientation: $0.orientation)
        }
        let reading: LineReading?
        do {
            reading = try reader.fillTitlesFromLines(
                texts, spines: outlines, rows: spines.map(\.row), source: source, maxPixels: maxPixels, recordingLines: recordingLines,
                isCancelled: isCancelled)
        } catch {
            return (spines, [], [])
        }
        guard let reading else { throw .canceled }
        let filled = reading.texts
        var out: [Spine] = []
        var before: [SpineText] = []
        for (i, spine) in spines.enumerated() {
            let cuts = i < reading.cuts.count ? reading.cuts[i] : []
            let pieces = MergedSpineSplitter.pieces(of: spine.outline, cuts: cuts)
            for piece in pieces {
                var part = spine
                if pieces.count > 1, let corners = piece.polygon, corners.count == 4 {
                    part.polygon = NormalizedQuad(topLeft: corners[0], topRight: corners[1], bottomRight: corners[2], bottomLeft: corners[3])
                    part.box = piece.box
                    // A piece the lines give no title to has no reading of its own: the box's was of several books.
                    (part.title, part.author, part.text, part.textConfidence) = (nil, nil, nil, nil)
                }
                out.append(part)
                before.append(pieces.count > 1 ? .unread : texts[i])
            }
        }
        guard out.count == filled.count else { return (spines, reading.spans, reading.lines) }
        // A title given, changed or withdrawn (`LineCheck`): the spine takes what the lines left.
        for i in out.indices where filled[i] != before[i] {
            let t = filled[i]
            out[i].title = t.title
            out[i].author = t.author
            out[i].text = t.text
            out[i].textConfidence = t.text == nil ? nil : t.confidence
            out[i].orientation = t.orientation
        }
        return (out, reading.spans, reading.lines)
    }

    /// The photo's upright text lines for the title decision of a horizontal stack's books (`TitleChoice`); none
    /// when the reader cannot read them; cancellation throws `.canceled`.
    func stackLines(_ reader: ShelfReader, source: ShelfReader.Source, maxPixels: Int, isCancelled: () -> Bool) throws(ScanEngineError)
        -> [RecordedLine]
    {
        if isCancelled() { throw .canceled }
        let lines: [RecordedLine]?
        do {
            lines = try reader.recordedLines(source, maxPixels: maxPixels, turns: [.horizontal], isCancelled: isCancelled)
        } catch {
            return []
        }
        guard let lines else { throw .canceled }
        return lines
    }
}

extension Spine {
    /// Where the spine is, as the reader needs it.
    var outline: SpineOutline {
        let q = polygon
        return SpineOutline(box: box, pose: pose, polygon: [q.topLeft, q.topRight, q.bottomRight, q.bottomLeft])
    }
}
