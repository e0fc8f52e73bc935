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
                let u0 = Double(segment.u0) + 0.5, u1 = Double(min(segment.u1, imageWidth - 1)) + 0.5
                let hb = Double(row.height - segment.top)
                let ha = Double(row.height - min(row.height, segment.bottom ?? row.height))
                var x0 = Double.infinity, x1 = -Double.infinity, y0 = Double.infinity, y1 = -Double.infinity
                for u in [u0, u1] {
                    for hh in [ha, hb] {
                        let p = row.point(u: u, h: hh, imageWidth: imageWidth)
                        x0 = min(x0, p.x); x1 = max(x1, p.x); y0 = min(y0, p.y); y1 = max(y1, p.y)
                    }
                }
                x0 = max(0, x0); y0 = max(0, y0); x1 = min(w, x1); y1 = min(h, y1)
                guard x1 > x0, y1 > y0 else { continue }
                let pose: SpinePose = segment.lying || (x1 - x0) > 1.5 * (y1 - y0) ? .lying : .upright
                spines.append(Spine(
                    index: spines.count, row: r,
                    box: NormalizedBox(x: x0 / w, y: y0 / h, width: (x1 - x0) / w, height: (y1 - y0) / h),
                    confidence: segment.confidence, color: segment.color, pose: pose))
            }
            outRows.append(ShelfRow(
                index: r, box: NormalizedBox(x: 0, y: top / h, width: 1, height: max(0, bottom - top) / h),
                spineCount: spines.count - firstSpine))
        }
        return (outRows, spines)
    }
}
