import Foundation

/// One shelf row in working-image pixels: the line the books stand on, how far up the row reaches,
/// and how the books' vertical edges lean (rotation plus keystone), as a linear function of x.
struct RowGeometry: Sendable, Equatable {
    /// Bottom line `y = b0 + b1 * x`.
    var b0: Double
    var b1: Double
    /// Height of the row strip above the bottom line.
    var height: Int
    /// Lean of vertical edges in degrees at x: `angle0 + angleSlope * (x - width / 2)`; positive leans the top right.
    var angle0: Double = 0
    var angleSlope: Double = 0

    /// Image point of strip coordinate `u` (x along the bottom line) at height `h` above it.
    func point(u: Double, h: Double, imageWidth: Int) -> (x: Double, y: Double) {
        let angle = (angle0 + angleSlope * (u - Double(imageWidth) / 2)) * .pi / 180
        return (u + h * tan(angle), b0 + b1 * u - h)
    }
}

/// Finds shelf rows: skew from horizontal structure, then bands rich in vertical edges (books)
/// separated by bands without them (shelf boards), then a refined bottom line per row.
struct RowFinder: Sendable {
    /// Horizontal-gradient magnitude (sum over channels) of the blurred image, used again by later stages.
    private(set) var gx: Plane
    private(set) var gy: Plane
    /// Global skew of horizontal structure in degrees (lines run `y = y0 + x * tan(angle)`).
    private(set) var angle: Double = 0

    init(image: WorkImage) {
        let w = image.width, h = image.height
        let (gx, gy, mean) = image.blurredGradients()
        self.gx = Plane(width: w, height: h, data: gx)
        self.gy = Plane(width: w, height: h, data: gy)
        self.angle = Self.globalAngle(mean, width: w, height: h)
    }

    /// The skew (degrees) maximising the peakiness of the sheared row profile of vertical gradients.
    static func globalAngle(_ luma: [Float], width: Int, height: Int) -> Double {
        let w2 = (width + 1) / 2, h2 = (height + 1) / 2
        guard h2 > 3, w2 > 1 else { return 0 }
        let h = h2 - 2
        var g = [Float](repeating: 0, count: h * w2)
        for y in 0..<h {
            for x in 0..<w2 { g[y * w2 + x] = abs(luma[(2 * (y + 2)) * width + 2 * x] - luma[(2 * y) * width + 2 * x]) }
        }
        var best = -Double.infinity, bestAngle = 0.0
        let pad = w2 + 60
        let profileCount = h + 2 * w2 + 200
        var profile = [Float](repeating: 0, count: profileCount)
        var offsets = [Int](repeating: 0, count: w2)
        g.withUnsafeBufferPointer { gp in
            profile.withUnsafeMutableBufferPointer { prof in
                offsets.withUnsafeMutableBufferPointer { off in
                    func score(_ t: Double) -> Double {
                        let tt = tan(t * .pi / 180)
                        for x in 0..<w2 { off[x] = Int((-(Double(x) - Double(w2) / 2) * tt).rounded()) + pad }
                        for i in 0..<profileCount { prof[i] = 0 }
                        for y in 0..<h {
                            let row = y * w2
                            for x in 0..<w2 {
                                let idx = y + off[x]
                                if idx >= 0 && idx < profileCount { prof[idx] += gp[row + x] }
                            }
                        }
                        var s = 0.0
                        for i in 0..<profileCount { s += Double(prof[i]) * Double(prof[i]) }
                        return s
                    }
                    // Coarse search in 0.5° steps, then 0.1° steps around the best.
                    for k in 0...14 {
                        let t = -3.5 + 0.5 * Double(k)
                        let s = score(t)
                        if s > best { best = s; bestAngle = t }
                    }
                    let coarse = bestAngle
                    for k in -4...4 where k != 0 {
                        let t = coarse + 0.1 * Double(k)
                        let s = score(t)
                        if s > best { best = s; bestAngle = t }
                    }
                }
            }
        }
        return bestAngle
    }

    /// Mean of `plane` along lines of the global skew, one value per line offset `0..<height`.
    func shearedProfile(_ plane: Plane) -> [Float] {
        let w = plane.width, h = plane.height
        let tt = tan(angle * .pi / 180)
        var sum = [Double](repeating: 0, count: h), count = [Int](repeating: 0, count: h)
        let offsets = (0..<w).map { Int((-(Double($0) - Double(w) / 2) * tt).rounded()) }
        plane.data.withUnsafeBufferPointer { p in
            for y in 0..<h {
                for x in 0..<w {
                    let s = y + offsets[x]
                    if s >= 0 && s < h { sum[s] += Double(p[y * w + x]); count[s] += 1 }
                }
            }
        }
        return (0..<h).map { Float(sum[$0] / Double(max(1, count[$0]))) }
    }

    /// Row bands `[top, bottom)` (in skew-corrected line offsets) where vertical edges are dense.
    func rowBands() -> [(Int, Int)] {
        let h = gx.height
        let ex = Signal.boxSmoothEdge(shearedProfile(gx), radius: max(2, h / 200))
        let p5 = Signal.percentile(ex, 5), p95 = Signal.percentile(ex, 95)
        let thr = p5 + 0.3 * (p95 - p5)
        var bands: [(Int, Int)] = []
        var y = 0
        while y < h {
            if ex[y] > thr {
                let y0 = y
                while y < h && ex[y] > thr { y += 1 }
                bands.append((y0, y))
            } else {
                y += 1
            }
        }
        var merged: [(Int, Int)] = []
        for band in bands {
            if let last = merged.last, Double(band.0 - last.1) < Double(h) * 0.015 {
                merged[merged.count - 1].1 = band.1
            } else {
                merged.append(band)
            }
        }
        return merged.filter { Double($0.1 - $0.0) >= Double(h) * 0.06 }
    }
}
