import ScanProtocol

/// Maps strip segments back to the image and builds the normalised rows and spines of a result.
struct ResultAssembler: Sendable {
    let imageWidth: Int
    let imageHeight: Int

    /// Rows top to bottom and spines row by row, left to right, indexed in that order.
    func assemble(rows: [RowGeometry], segments: [[StripSegment]]) -> (rows: [ShelfRow], spines: [Spine]) {
        let w = Double(imageWidth), h = Double(imageHeight)
        var outRows: [ShelfRow] = []
        var spines: [Spine] = []
        for (r, row) in rows.enumerated() {
            let found = r < segments.count ? segments[r] : []
            let yLeft = row.b0, yRight = row.b0 + row.b1 * w
            let bottom = min(h, max(yLeft, yRight)), top = max(0, min(yLeft, yRight) - Double(row.height))
            let firstSpine = spines.count
            for segment in found {
                let corners = segment.corners(height: row.height, width: imageWidth).map { c in
                    let p = row.point(u: c.u, h: c.h, imageWidth: imageWidth)
                    return (x: min(w, max(0, p.x)), y: min(h, max(0, p.y)))
                }
                let xs = corners.map(\.x), ys = corners.map(\.y)
                guard let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max(), x1 > x0, y1 > y0 else { continue }
                let pose: SpinePose =
                    segment.lean != nil ? .leaning : (segment.lying || (x1 - x0) > 1.5 * (y1 - y0) ? .lying : .upright)
                let points = corners.map { NormalizedPoint(x: $0.x / w, y: $0.y / h) }
                spines.append(Spine(
                    index: spines.count, row: r,
                    box: NormalizedBox(x: x0 / w, y: y0 / h, width: (x1 - x0) / w, height: (y1 - y0) / h),
                    confidence: segment.confidence, color: segment.color, pose: pose,
                    polygon: NormalizedQuad(topLeft: points[0], topRight: points[1], bottomRight: points[2], bottomLeft: points[3])))
            }
            outRows.append(ShelfRow(
                index: r, box: NormalizedBox(x: 0, y: top / h, width: 1, height: max(0, bottom - top) / h),
                spineCount: spines.count - firstSpine))
        }
        return (outRows, spines)
    }
}
