import Foundation
import ImageKit
import ScanEngine
import ScanProtocol
import Testing

/// Paints convex quads (corners in order) into a pixel buffer.
struct QuadPainter {
    static func paint(_ image: inout PixelBuffer, _ corners: [(x: Double, y: Double)], _ colour: (UInt8, UInt8, UInt8)) {
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let x0 = max(0, Int(xs.min() ?? 0)), x1 = min(image.width - 1, Int((xs.max() ?? 0).rounded(.up)))
        let y0 = max(0, Int(ys.min() ?? 0)), y1 = min(image.height - 1, Int((ys.max() ?? 0).rounded(.up)))
        guard x1 >= x0, y1 >= y0 else { return }
        for y in y0...y1 {
            for x in x0...x1 {
                let px = Double(x) + 0.5, py = Double(y) + 0.5
                var positive = 0, negative = 0
                for k in 0..<corners.count {
                    let a = corners[k], b = corners[(k + 1) % corners.count]
                    let cross = (b.x - a.x) * (py - a.y) - (b.y - a.y) * (px - a.x)
                    if cross > 0 { positive += 1 } else if cross < 0 { negative += 1 }
                }
                if positive == 0 || negative == 0 { image.setPixel(x: x, y: y, colour) }
            }
        }
    }
}

@Suite("ScanEngine spine geometry")
struct SpineGeometryTests {
    let shelf = SyntheticShelf.make()

    func scan(_ image: PixelBuffer) throws -> ScanResult {
        try ScanEngine().scan(
            image: image, sourceWidth: image.width, sourceHeight: image.height, progress: { _, _ in }, isCancelled: { false })
    }

    @Test("a book leaning 15° in a gap is one leaning spine with a rotated polygon; the upright books stay upright")
    func leaningBook() throws {
        var image = shelf.image
        // Pivot on the bottom-right corner at x = 760 on the first row's board (y = 280), top leaning right.
        let angle = 15.0 * Double.pi / 180, width = 36.0, length = 210.0
        let across = (x: cos(angle), y: sin(angle)), up = (x: sin(angle), y: -cos(angle))
        let bottomRight = (x: 760.0, y: 280.0)
        let bottomLeft = (x: bottomRight.x - width * across.x, y: bottomRight.y - width * across.y)
        let topLeft = (x: bottomLeft.x + length * up.x, y: bottomLeft.y + length * up.y)
        let topRight = (x: bottomRight.x + length * up.x, y: bottomRight.y + length * up.y)
        QuadPainter.paint(&image, [topLeft, topRight, bottomRight, bottomLeft], (230, 200, 60))
        let result = try scan(image)

        let leaning = result.spines.filter { $0.pose == .leaning }
        #expect(leaning.count == 1)
        let spine = try #require(leaning.first)
        #expect(spine.row == 0)
        let w = Double(image.width), h = Double(image.height)
        // The polygon's long sides lean about 15° to the right (top right of bottom).
        let p = spine.polygon
        for (top, bottom) in [(p.topLeft, p.bottomLeft), (p.topRight, p.bottomRight)] {
            let lean = atan2((top.x - bottom.x) * w, (bottom.y - top.y) * h) * 180 / .pi
            #expect(abs(lean - 15) < 3, "edge lean \(lean)°")
        }
        // Its corners lie near the painted ones. The engine's quad is a parallelogram with top and bottom parallel to
        // the shelf, so a corner may be off by up to width × sin(lean) ≈ 9 px plus the edge position (an upright
        // quad would miss the top corners by length × sin(lean) ≈ 54 px).
        let painted = [topLeft, topRight, bottomRight, bottomLeft]
        for (found, truth) in zip(p.corners, painted) {
            let distance = hypot(found.x * w - truth.x, found.y * h - truth.y)
            #expect(distance < 20, "corner \(found.x * w), \(found.y * h) vs \(truth)")
        }
        // The box is the polygon's bounding box.
        #expect(abs(spine.box.x - p.boundingBox.x) < 1e-9 && abs(spine.box.width - p.boundingBox.width) < 1e-9)
        // Upright spines keep (nearly) vertical polygons, and all twelve are still there.
        let upright = result.spines.filter { $0.row == 0 && $0.pose == .upright }
        #expect(upright.count == 12)
        for s in upright {
            #expect(abs(s.polygon.topLeft.x - s.polygon.bottomLeft.x) * w < 3)
        }
    }

    @Test("the synthetic shelf has no leaning books: every painted book is found, each upright")
    func noLeaningOnUprightShelf() throws {
        let result = try scan(shelf.image)
        // Something found, or "all upright" holds of nothing: each row's books as painted.
        for (row, books) in shelf.rows.enumerated() {
            #expect(result.spines.count { $0.row == row } == books.count, "row \(row)")
        }
        #expect(result.spines.allSatisfy { $0.pose == .upright })
    }

    @Test("two thin neighbours of the same colour with a seam between them stay two spines")
    func thinSameColourNeighbours() throws {
        var image = shelf.image
        // Right of the second row's books: two 11-px books of one colour, a 2-px dark seam between them.
        let colour: (UInt8, UInt8, UInt8) = (60, 170, 180)
        for y in 380..<560 {
            for x in 700..<711 { image.setPixel(x: x, y: y, colour) }
            for x in 711..<713 { image.setPixel(x: x, y: y, (25, 22, 20)) }
            for x in 713..<724 { image.setPixel(x: x, y: y, colour) }
        }
        let result = try scan(image)
        let w = Double(image.width)
        let thin = result.spines.filter { s in
            let centre = (s.box.x + s.box.width / 2) * w
            return s.row == 1 && centre > 695 && centre < 729
        }
        #expect(thin.count == 2)
        for s in thin { #expect(s.box.width * w < 18, "width \(s.box.width * w) px") }
    }

    @Test("a stack of five lying books of similar colours is five lying spines")
    func lyingStackOfFive() throws {
        var image = shelf.image
        let stack: [(x: Int, y: Int, w: Int, h: Int, colour: (UInt8, UInt8, UInt8))] = [
            (660, 250, 220, 30, (200, 40, 40)), (668, 222, 200, 28, (160, 30, 30)), (676, 196, 190, 26, (210, 60, 50)),
            (664, 172, 196, 24, (150, 40, 40)), (680, 150, 170, 22, (205, 45, 45)),
        ]
        for book in stack {
            for y in book.y..<(book.y + book.h) { for x in book.x..<(book.x + book.w) { image.setPixel(x: x, y: y, book.colour) } }
        }
        let result = try scan(image)
        let w = Double(image.width), h = Double(image.height)
        let lying = result.spines.filter { $0.pose == .lying }
        #expect(lying.count == stack.count)
        for book in stack {
            let box: (x: Double, y: Double, w: Double, h: Double) = (
                x: Double(book.x) / w, y: Double(book.y) / h, w: Double(book.w) / w, h: Double(book.h) / h
            )
            let best = lying.map { iou($0.box, box) }.max() ?? 0
            #expect(best > 0.6, "lying book at \(box) best IoU \(best)")
        }
        #expect(result.spines.filter { $0.row == 0 && $0.pose == .upright }.count == 12)
    }
}
