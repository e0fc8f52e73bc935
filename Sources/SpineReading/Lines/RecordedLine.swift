import ImageKit
package import ScanProtocol

/// A text line of the whole photo as the reading lab records it (`ShelfReader.recordedLines`): what PP-OCR read,
/// how surely, where its centre lies and how thick and long it is, all relative to the upright photo.
package struct RecordedLine: Sendable, Hashable, Codable {
    package var text: String
    /// PP-OCR's confidence, 0–1.
    package var confidence: Double
    /// The centre, normalised to the upright photo (0–1 across, 0–1 down).
    package var centerX: Double
    package var centerY: Double
    /// Thickness across the letters and length along them, as shares of the photo's long side.
    package var thickness: Double
    package var length: Double
    package var orientation: TextOrientation

    package init(
        text: String, confidence: Double, centerX: Double, centerY: Double, thickness: Double, length: Double, orientation: TextOrientation
    ) {
        self.text = text
        self.confidence = confidence
        self.centerX = centerX
        self.centerY = centerY
        self.thickness = thickness
        self.length = length
        self.orientation = orientation
    }

    init(_ line: PhotoLine, photoLongSide: Int) {
        let side = Double(max(1, photoLongSide))
        text = line.text
        confidence = line.confidence
        centerX = line.center.x
        centerY = line.center.y
        thickness = line.thickness / side
        length = (line.end - line.start) / side
        orientation = line.orientation
    }
}

extension ShelfReader {
    /// Every text line of the photo in `turns` (by default all three: along standing spines both ways, and upright), each
    /// read once the right way up (`PhotoLineReader.read`): the evidence the reading lab caches per photo. Nil with
    /// Tesseract alone (no scene-text reader) or when cancelled.
    package func recordedLines(
        _ source: Source, maxPixels: Int = 0, turns: [TextOrientation] = [.verticalTopToBottom, .verticalBottomToTop, .horizontal],
        isCancelled: () -> Bool = { false }
    ) throws -> [RecordedLine]? {
        let photo = try Self.wholePhoto(source, longSide: PhotoLineReader.longSide, maxPixels: maxPixels)
        let side = max(photo.width, photo.height)
        let lines = try pool.withSceneTextReader { engine in
            PhotoLineReader().read(photo, turns: turns, engine: engine, isCancelled: isCancelled)
        }
        guard let found = lines ?? nil else { return nil }
        return found.map { RecordedLine($0, photoLongSide: side) }
    }
}
