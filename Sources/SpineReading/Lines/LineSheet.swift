import ImageKit
import ScanProtocol

/// Standing lines cut out of the photo and turned upright, stacked one under another on one RGB sheet, so that
/// PP-OCR's recogniser reads them all in one call, batched by width (`PPOCRRecognizer.readRegions`): each line
/// once per way it may run (a quarter turn counter-clockwise for lettering top to bottom, clockwise for bottom
/// to top), with where each copy lies on the sheet.
struct LineSheet {
    /// One line's place in the photo: its axis-aligned box (pixels, right and bottom exclusive).
    struct Box: Sendable, Hashable {
        var left: Int
        var top: Int
        var right: Int
        var bottom: Int
    }

    /// One copy on the sheet: which line, turned which way, and its rectangle there (rows `top ..< top + height`).
    struct Region: Sendable, Hashable {
        var line: Int
        var orientation: TextOrientation
        var top: Int
        var width: Int
        var height: Int
    }

    let width: Int
    let height: Int
    /// `width * height * 3` bytes, packed RGB (gray repeated), rows top to bottom.
    let rgb: [UInt8]
    let regions: [Region]

    /// The sheet of `boxes` (inside `photo`, clamped to it) turned each way of `orientations` (the vertical ones;
    /// `.horizontal` is skipped); nil when there is nothing to read.
    init?(_ photo: GrayImage, boxes: [Box], orientations: [TextOrientation]) {
        let turns = orientations.filter { $0 != .horizontal }
        var regions: [Region] = []
        var rows = 0, widest = 0
        var clamped: [Box] = []
        for box in boxes {
            let left = max(0, min(photo.width - 1, box.left)), top = max(0, min(photo.height - 1, box.top))
            let right = max(left + 1, min(photo.width, box.right)), bottom = max(top + 1, min(photo.height, box.bottom))
            clamped.append(Box(left: left, top: top, right: right, bottom: bottom))
        }
        for (index, box) in clamped.enumerated() {
            // Turned a quarter either way, the box's height runs along the sheet and its width across.
            let along = box.bottom - box.top, across = box.right - box.left
            for orientation in turns {
                regions.append(Region(line: index, orientation: orientation, top: rows, width: along, height: across))
                rows += across
            }
            widest = max(widest, along)
        }
        guard rows > 0, widest > 0 else { return nil }
        width = widest
        height = rows
        var rgb = [UInt8](repeating: 0, count: widest * rows * 3)
        photo.pixels.withUnsafeBufferPointer { source in
            rgb.withUnsafeMutableBufferPointer { target in
                for region in regions {
                    let box = clamped[region.line]
                    for v in 0..<region.height {
                        let row = (region.top + v) * widest
                        for u in 0..<region.width {
                            // Counter-clockwise: sheet (u, v) is box pixel (w − 1 − v, u); clockwise: (v, h − 1 − u)
                            // (`GrayImage.turnedCounterClockwise` / `turnedClockwise`).
                            let x: Int, y: Int
                            if region.orientation == .verticalTopToBottom {
                                (x, y) = (box.right - 1 - v, box.top + u)
                            } else {
                                (x, y) = (box.left + v, box.bottom - 1 - u)
                            }
                            let value = source[y * photo.width + x]
                            let at = 3 * (row + u)
                            target[at] = value
                            target[at + 1] = value
                            target[at + 2] = value
                        }
                    }
                }
            }
        }
        self.rgb = rgb
        self.regions = regions
    }
}
