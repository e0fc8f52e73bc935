import Foundation

/// Turns row bands into per-row geometry: a fitted bottom line (where the books stand) and the
/// lean of vertical edges across the row (camera rotation plus keystone).
struct RowGeometryFitter: Sendable {
    let finder: RowFinder
    /// Degrees by which a slab's best angle may lie off the line fitted through the row's other slabs before it is
    /// taken for a leaning book and left out. On shelf_037 one slab at −5.75° (a leaning book) tilted a row of
    /// upright books by −3° at its far end, and their edges ran across the strip's columns. Leaving such slabs out
    /// took spine F1 on the 40 photos 86.6 → 88.1 % (hard tier 82.4 → 84.5 %, leaning recall 77.3 → 78.8 %);
    /// 87.7 / 88.1 % at 1 / 2.5°.
    var maxSlabResidual: Double = 1.5

    /// Bottom line and strip height for each band, top to bottom.
    func fitRows(_ bands: [(Int, Int)]) -> [RowGeometry] {
        let gx = finder.gx, gy = finder.gy
        let w = gx.width, h = gx.height
        let tt = tan(finder.angle * .pi / 180)
        var rows: [RowGeometry] = []
        let slabs = 8
        let slabWidth = Double(w) / Double(slabs)
        for (y0, y1) in bands {
            var px: [Double] = [], py: [Double] = [], ps: [Double] = []
            for s in 0..<slabs {
                let xa = Int(Double(s) * slabWidth), xb = Int(Double(s + 1) * slabWidth)
                guard xb > xa else { continue }
                let xc = Double(xa + xb) / 2
                let yc = Double(y1) + (xc - Double(w) / 2) * tt
                let lo = Int(max(0, yc - 15)), hi = Int(min(Double(h - 1), yc + 15))
                guard hi - lo >= 5 else { continue }
                let pe = columnMeans(gx, xa: xa, xb: xb, y0: max(0, lo - 6), y1: min(h, hi + 6))
                let pey = columnMeans(gy, xa: xa, xb: xb, y0: max(0, lo - 6), y1: min(h, hi + 6))
                let base = max(0, lo - 6)
                var best: (Double, Int)? = nil
                for y in lo..<hi where y - 6 >= 0 && y + 6 <= h {
                    var above: Float = 0, below: Float = 0
                    for k in 0..<6 { above += pe[y - 6 + k - base]; below += pe[y + k - base] }
                    let score = Double(above / 6 - below / 6 + 0.5 * pey[y - base])
                    if best == nil || score > (best?.0 ?? 0) { best = (score, y) }
                }
                if let best { px.append(xc); py.append(Double(best.1)); ps.append(best.0) }
            }
            var b1 = tt
            var b0 = Double(y1) - tt * Double(w) / 2
            if !px.isEmpty {
                let residuals = px.indices.map { py[$0] - b1 * px[$0] }
                b0 = Double(Signal.median(residuals.map { Float($0) }))
                for iteration in 0..<5 {
                    let limit = 4.0 + (iteration == 0 ? 10 : 0)
                    let weights = px.indices.map { i -> Double in
                        abs(py[i] - (b0 + b1 * px[i])) < limit ? max(ps[i], 1e-3) : 0
                    }
                    guard weights.reduce(0, +) > 0 else { break }
                    if let fit = Signal.fitLine(x: px, y: py, w: weights) {
                        if abs(atan(fit.b) * 180 / .pi - finder.angle) < 1.6 { b0 = fit.a; b1 = fit.b }
                    } else {
                        // One usable point: keep the slope and pass through the weighted mean.
                        let sw = weights.reduce(0, +)
                        b0 = px.indices.reduce(0.0) { $0 + weights[$1] * (py[$1] - b1 * px[$1]) } / sw
                    }
                }
            }
            let center = b0 + b1 * Double(w) / 2
            var height = Double(y1 - y0) * 1.25 + 6
            if let prev = rows.last { height = center - (prev.b0 + prev.b1 * Double(w) / 2) - 3 }
            height = min(height, center)
            rows.append(RowGeometry(b0: b0, b1: b1, height: max(4, Int(height))))
        }
        return rows
    }

    /// Mean over columns `xa..<xb` of each line `y0..<y1`.
    private func columnMeans(_ plane: Plane, xa: Int, xb: Int, y0: Int, y1: Int) -> [Float] {
        var out = [Float](repeating: 0, count: max(0, y1 - y0))
        plane.data.withUnsafeBufferPointer { p in
            for y in y0..<max(y0, y1) {
                var s: Float = 0
                for x in xa..<xb { s += p[y * plane.width + x] }
                out[y - y0] = s / Float(xb - xa)
            }
        }
        return out
    }

    /// Estimates the lean of vertical edges in six slabs along the row and fits it linearly in x.
    func fitVerticalAngles(_ row: RowGeometry, smoothedGx: Plane) -> RowGeometry {
        let w = smoothedGx.width, h = smoothedGx.height
        let slabs = 6
        let slabWidth = Double(w) / Double(slabs)
        let hLo = Int(Double(row.height) * 0.1), hHi = Int(Double(row.height) * 0.6)
        guard hHi > hLo else { return row }
        let heights = Array(stride(from: hLo, to: hHi, by: 2))
        var xs: [Double] = [], angles: [Double] = [], weights: [Double] = []
        smoothedGx.data.withUnsafeBufferPointer { p in
            for s in 0..<slabs {
                let xa = Int(Double(s) * slabWidth), xb = Int(Double(s + 1) * slabWidth)
                guard xb > xa else { continue }
                func score(_ angle: Double) -> Float {
                    let ta = tan(angle * .pi / 180)
                    var total: Float = 0
                    var n = 0
                    for x in stride(from: xa, to: xb, by: 2) {
                        n += 1
                        var colSum: Float = 0
                        let yb = row.b0 + row.b1 * Double(x)
                        for hh in heights {
                            colSum += Plane.sample(p, w, h, Double(x) + Double(hh) * ta, yb - Double(hh))
                        }
                        let m = colSum / Float(heights.count)
                        total += m * m
                    }
                    return total / Float(max(1, n))
                }
                // Coarse 1° steps over ±5°, then 0.25° steps around the best.
                var scores: [Float] = []
                var best = -Float.infinity, bestAngle = 0.0
                for k in 0...10 {
                    let angle = -5 + Double(k)
                    let s = score(angle)
                    scores.append(s)
                    if s > best { best = s; bestAngle = angle }
                }
                let coarse = bestAngle
                for k in -3...3 where k != 0 {
                    let angle = coarse + 0.25 * Double(k)
                    let s = score(angle)
                    if s > best { best = s; bestAngle = angle }
                }
                let gain = Double(best / max(Signal.median(scores), 1e-6))
                xs.append(Double(xa + xb) / 2 - Double(w) / 2)
                angles.append(bestAngle)
                weights.append(max(gain - 1, 0))
            }
        }
        // A slab whose angle lies more than `maxSlabResidual` off the line through the other slabs is a leaning book,
        // not the camera's verticals: drop the furthest such slab and fit again, while at least three are left. (Off
        // the line through all slabs would not do: a leaning slab at the end pulls that line towards itself, and its
        // upright neighbours end up further from it than the leaning one.)
        while xs.count > 3 {
            var worst = -1, worstResidual = maxSlabResidual
            for i in xs.indices where weights[i] > 0 {
                var others = weights
                others[i] = 0
                guard let fit = Signal.fitLine(x: xs, y: angles, w: others) else { continue }
                let residual = abs(angles[i] - (fit.a + fit.b * xs[i]))
                if residual > worstResidual { (worst, worstResidual) = (i, residual) }
            }
            guard worst >= 0 else { break }
            xs.remove(at: worst)
            angles.remove(at: worst)
            weights.remove(at: worst)
        }
        var out = row
        let sw = weights.reduce(0, +)
        guard sw > 1e-6 else { return out }
        if let fit = Signal.fitLine(x: xs, y: angles, w: weights) {
            out.angle0 = fit.a
            out.angleSlope = fit.b
        } else {
            out.angle0 = xs.indices.reduce(0.0) { $0 + weights[$1] * angles[$1] } / sw
        }
        return out
    }
}
