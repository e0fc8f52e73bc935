import ImageKit
import ScanProtocol

/// Standing lines cut out of the photo along their own axis and turned upright, stacked one under another on one
/// RGB sheet, so that PP-OCR's recogniser reads them all in one call, batched by width
/// (`PPOCRRecognizer.readRegions`): each line once per way it is to be read (top to bottom as on the photo turned a
/// quarter counter-clockwise, or bottom to top), with where each copy lies on the sheet.
struct LineSheet {
    /// A point in the upright photo, pixels.
    struct Point: Sendable, Hashable {
        var x: Double
        var y: Double
    }

    /// One line's place in the upright photo (pixel-edge coordinates: pixel `i` covers `i ..< i + 1`): four corners
    /// in reading order for lettering top to bottom (the line's top-left, top-right, bottom-right and bottom-left as
    /// read on the photo turned a quarter counter-clockwise). A slanted line's quad is a turned rectangle.
    struct Quad: Sendable, Hashable {
        var corners: [Point]

        init(corners: [Point]) {
            self.corners = corners
        }

        /// The quad of an axis-aligned box (pixels, right and bottom exclusive) standing in the photo.
        init(left: Int, top: Int, right: Int, bottom: Int) {
            let l = Double(left), t = Double(top), r = Double(right), b = Double(bottom)
            corners = [Point(x: r, y: t), Point(x: r, y: b), Point(x: l, y: b), Point(x: l, y: t)]
        }

        /// The quad of a line PP-OCR detected on the photo turned a quarter counter-clockwise (`photoWidth` the upright
        /// photo's width): a point (u, v) there is (W − v, u) upright.
        init(turnedCorners: [(x: Double, y: Double)], photoWidth: Int) {
            corners = turnedCorners.map { Point(x: Double(photoWidth) - $0.y, y: $0.x) }
        }

        /// Length along the reading direction and thickness across it (the longer of each pair of sides).
        var length: Double { max(distance(0, 1), distance(3, 2)) }
        var thickness: Double { max(distance(0, 3), distance(1, 2)) }

        /// The mean of the two sides across the reading direction.
        var meanThickness: Double { (distance(0, 3) + distance(1, 2)) / 2 }

        /// Whether the quad's sides run along the photo's rows and columns (within a tenth of a pixel).
        var isUpright: Bool {
            abs(corners[0].x - corners[1].x) < 0.1 && abs(corners[3].x - corners[2].x) < 0.1 && abs(corners[0].y - corners[3].y) < 0.1
                && abs(corners[1].y - corners[2].y) < 0.1
        }

        /// The smallest and largest x and y of the corners.
        var bounds: (left: Double, top: Double, right: Double, bottom: Double) {
            let xs = corners.map(\.x), ys = corners.map(\.y)
            return (xs.min() ?? 0, ys.min() ?? 0, xs.max() ?? 0, ys.max() ?? 0)
        }

        private func distance(_ a: Int, _ b: Int) -> Double {
            let dx = corners[a].x - corners[b].x, dy = corners[a].y - corners[b].y
            return (dx * dx + dy * dy).squareRoot()
        }
    }

    /// A line to cut out and the ways to read it (`.verticalTopToBottom`, `.verticalBottomToTop`; `.horizontal` is skipped).
    struct Cut: Sendable, Hashable {
        var quad: Quad
        var orientations: [TextOrientation]
    }

    /// One copy on the sheet: which cut, read which way, and its rectangle there (rows `top ..< top + height`).
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

    /// The sheet of `cuts`, each sampled from `photo` along its quad's axis (bilinear; outside the photo its edge
    /// repeats); nil when there is nothing to read.
    init?(_ photo: GrayImage, cuts: [Cut]) {
        var regions: [Region] = []
        var rows = 0, widest = 0
        for (index, cut) in cuts.enumerated() {
            let along = max(1, Int(cut.quad.length.rounded())), across = max(1, Int(cut.quad.thickness.rounded()))
            for orientation in cut.orientations where orientation != .horizontal {
                regions.append(Region(line: index, orientation: orientation, top: rows, width: along, height: across))
                rows += across
                widest = max(widest, along)
            }
        }
        guard rows > 0, widest > 0, photo.width > 0, photo.height > 0 else { return nil }
        width = widest
        height = rows
        var rgb = [UInt8](repeating: 0, count: widest * rows * 3)
        photo.pixels.withUnsafeBufferPointer { source in
            rgb.withUnsafeMutableBufferPointer { target in
                for region in regions {
                    let q = cuts[region.line].quad.corners
                    // Top to bottom the copy starts at corner 0 and runs to 1, across towards 3; bottom to top it is
                    // the same rectangle turned half round: from 2 to 3, across towards 1.
                    let (origin, end, side) = region.orientation == .verticalTopToBottom ? (q[0], q[1], q[3]) : (q[2], q[3], q[1])
                    let alongX = (end.x - origin.x) / Double(region.width), alongY = (end.y - origin.y) / Double(region.width)
                    let acrossX = (side.x - origin.x) / Double(region.height), acrossY = (side.y - origin.y) / Double(region.height)
                    for v in 0..<region.height {
                        let row = (region.top + v) * widest
                        for u in 0..<region.width {
                            let s = Double(u) + 0.5, t = Double(v) + 0.5
                            let x = origin.x + s * alongX + t * acrossX - 0.5, y = origin.y + s * alongY + t * acrossY - 0.5
                            let value = Self.sample(source, width: photo.width, height: photo.height, x: x, y: y)
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

    /// The photo's value at pixel-centre coordinates (x, y), bilinear, the edge repeated outside.
    private static func sample(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, x: Double, y: Double) -> UInt8 {
        let cx = min(max(x, 0), Double(width - 1)), cy = min(max(y, 0), Double(height - 1))
        let x0 = Int(cx), y0 = Int(cy)
        let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
        let fx = cx - Double(x0), fy = cy - Double(y0)
        let top = Double(pixels[y0 * width + x0]) * (1 - fx) + Double(pixels[y0 * width + x1]) * fx
        let bottom = Double(pixels[y1 * width + x0]) * (1 - fx) + Double(pixels[y1 * width + x1]) * fx
        return UInt8(min(255, max(0, (top * (1 - fy) + bottom * fy).rounded())))
    }
}
