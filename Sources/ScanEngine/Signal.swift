/// Small 1-D signal helpers (filters, order statistics) shared by the engine stages.
enum Signal {
    /// Index into `0..<count` with half-sample symmetric reflection (scipy's "reflect" mode).
    @inline(__always)
    static func reflect(_ i: Int, _ count: Int) -> Int {
        var j = i
        while j < 0 || j >= count {
            if j < 0 { j = -j - 1 }
            if j >= count { j = 2 * count - j - 1 }
        }
        return j
    }

    /// Moving average of `2 * radius + 1` samples with replicated edges.
    static func boxSmoothEdge(_ values: [Float], radius: Int) -> [Float] {
        let n = values.count
        guard n > 0, radius > 0 else { return values }
        var out = [Float](repeating: 0, count: n)
        let k = Float(2 * radius + 1)
        values.withUnsafeBufferPointer { src in
            for i in 0..<n {
                var s: Float = 0
                for j in (i - radius)...(i + radius) { s += src[min(n - 1, max(0, j))] }
                out[i] = s / k
            }
        }
        return out
    }

    /// Median filter of odd `size` with reflected edges.
    static func medianFilter(_ values: [Float], size: Int) -> [Float] {
        let n = values.count
        guard n > 0, size > 1 else { return values }
        let r = size / 2
        var out = [Float](repeating: 0, count: n)
        var window = [Float](repeating: 0, count: 2 * r + 1)
        for i in 0..<n {
            for j in 0...(2 * r) { window[j] = values[reflect(i - r + j, n)] }
            window.sort()
            out[i] = window[r]
        }
        return out
    }

    /// Median (mean of the two middle values for even counts); 0 for an empty input.
    static func median(_ values: [Float]) -> Float {
        percentile(values, 50)
    }

    /// Percentile with linear interpolation between closest ranks (numpy's default); 0 when empty.
    static func percentile(_ values: [Float], _ p: Float) -> Float {
        guard !values.isEmpty else { return 0 }
        var sorted = values
        sorted.sort()
        return percentileOfSorted(sorted, p)
    }

    /// Percentile of already sorted values.
    static func percentileOfSorted(_ sorted: [Float], _ p: Float) -> Float {
        guard let first = sorted.first else { return 0 }
        let n = sorted.count
        if n == 1 { return first }
        let pos = Double(p) / 100 * Double(n - 1)
        let lo = Int(pos.rounded(.down))
        let hi = min(n - 1, lo + 1)
        let f = Float(pos - Double(lo))
        return sorted[lo] + (sorted[hi] - sorted[lo]) * f
    }

    /// Index of the first maximum.
    static func argmax(_ values: ArraySlice<Float>) -> Int {
        var best = values.startIndex
        for i in values.indices where values[i] > values[best] { best = i }
        return best
    }

    /// Weighted least-squares line `y = a + b * x`; nil when the system is degenerate.
    static func fitLine(x: [Double], y: [Double], w: [Double]) -> (a: Double, b: Double)? {
        var sw = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0
        for i in x.indices where w[i] > 0 {
            sw += w[i]; sx += w[i] * x[i]; sy += w[i] * y[i]
            sxx += w[i] * x[i] * x[i]; sxy += w[i] * x[i] * y[i]
        }
        let det = sw * sxx - sx * sx
        guard sw > 0, abs(det) > 1e-9 * max(1, sw * sxx) else { return nil }
        let b = (sw * sxy - sx * sy) / det
        return ((sy - b * sx) / sw, b)
    }
}
