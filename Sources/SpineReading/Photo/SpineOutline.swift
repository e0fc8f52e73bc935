package import ScanProtocol

/// Where a spine is, as the reader needs it: the axis-aligned box normalised to the upright image,
/// the pose, and when detection found one the 4-point outline (normalised, any winding).
package struct SpineOutline: Sendable, Hashable {
    package var box: NormalizedBox
    package var pose: SpinePose
    /// Four corners (x, y), each a fraction of the image width / height.
    package var polygon: [NormalizedPoint]?

    package init(box: NormalizedBox, pose: SpinePose, polygon: [NormalizedPoint]? = nil) {
        self.box = box
        self.pose = pose
        self.polygon = polygon
    }
}

/// A spine as an oriented rectangle in pixels of the reading image: centre, unit long axis
/// (pointing down for standing books, right for lying ones), length along it and width across it.
package struct SpineFrame: Sendable, Hashable {
    var centerX: Double
    var centerY: Double
    var axisX: Double
    var axisY: Double
    package var length: Double
    package var width: Double

    /// The normal to the axis (pointing right for an axis pointing down).
    var normalX: Double { axisY }
    var normalY: Double { -axisX }

    /// Whether the long axis is closer to horizontal (a lying book).
    var isHorizontal: Bool { abs(axisX) > abs(axisY) }

    /// The frame of `outline` in an upright image of `imageWidth`×`imageHeight` pixels.
    package init(_ outline: SpineOutline, imageWidth: Int, imageHeight: Int) {
        let w = Double(imageWidth), h = Double(imageHeight)
        if let polygon = outline.polygon, polygon.count == 4 {
            let p = polygon.map { (x: $0.x * w, y: $0.y * h) }
            func distance(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
                ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
            }
            let cx = p.reduce(0) { $0 + $1.x } / 4, cy = p.reduce(0) { $0 + $1.y } / 4
            // Sides 0-1 / 2-3 against 1-2 / 3-0: the longer pair runs along the spine.
            let sideA = (distance(p[0], p[1]) + distance(p[2], p[3])) / 2
            let sideB = (distance(p[1], p[2]) + distance(p[3], p[0])) / 2
            var dx: Double, dy: Double
            if sideA >= sideB {
                dx = (p[1].x - p[0].x + p[2].x - p[3].x) / 2
                dy = (p[1].y - p[0].y + p[2].y - p[3].y) / 2
            } else {
                dx = (p[2].x - p[1].x + p[3].x - p[0].x) / 2
                dy = (p[2].y - p[1].y + p[3].y - p[0].y) / 2
            }
            let norm = max(1e-9, (dx * dx + dy * dy).squareRoot())
            dx /= norm
            dy /= norm
            // Standing books: axis points down; lying books: axis points right.
            if abs(dy) >= abs(dx) { if dy < 0 { dx = -dx; dy = -dy } } else if dx < 0 { dx = -dx; dy = -dy }
            self.init(
                centerX: cx, centerY: cy, axisX: dx, axisY: dy, length: max(sideA, sideB), width: max(1, min(sideA, sideB)))
            return
        }
        let bx = outline.box.x * w, by = outline.box.y * h, bw = outline.box.width * w, bh = outline.box.height * h
        let lying = outline.pose == .lying || bw > bh * 1.5
        self.init(
            centerX: bx + bw / 2, centerY: by + bh / 2, axisX: lying ? 1 : 0, axisY: lying ? 0 : 1,
            length: max(1, lying ? bw : bh), width: max(1, lying ? bh : bw))
    }

    init(centerX: Double, centerY: Double, axisX: Double, axisY: Double, length: Double, width: Double) {
        self.centerX = centerX
        self.centerY = centerY
        self.axisX = axisX
        self.axisY = axisY
        self.length = length
        self.width = width
    }
}
