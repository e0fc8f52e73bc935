/// Finds stacks of books lying flat on a shelf in a row strip and splits them into single books.
///
/// A lying book shows long horizontal edges (its top against the book above or the background) that are much
/// longer than an upright spine is wide. Starting at the row's bottom line, edges are chained upwards while the
/// spacing stays a plausible book thickness and the edges overlap. A band between two edges is accepted only when
/// no vertical boundaries cross it (which would mean upright spines with aligned printed bands).
struct LyingStackFinder: Sendable {
    /// Minimum edge length as a fraction of the strip height.
    var minLengthFraction: Double = 0.4
    /// Book thickness bounds as fractions of the strip height.
    var minThickness: Double = 0.04
    var maxThickness: Double = 0.3
    /// Fraction of run columns that must be above the edge threshold.
    var minDensity: Double = 0.85
    /// Edge threshold as a multiple of the strip's vertical step threshold.
    var edgeFactor: Float = 1.3
    /// Column gap bridged inside a run.
    var maxGap = 3
    /// A column crosses a band when this fraction of its inner lines shows a horizontal colour change.
    var crossingFraction: Double = 0.8
    /// Fraction of the book length at each end where printed bands may cross the band.
    var endMargin: Double = 0.15
    /// An edge nearer to the book below wins when it has at least this fraction of the strongest edge's strength.
    var nearStrength: Float = 0.4

    /// A long horizontal edge: strip line, columns `a..<b`, summed strength.
    struct Edge: Sendable, Equatable {
        var line: Int
        var a: Int
        var b: Int
        var strength: Float
    }

    /// Lying books of the strip (bottom first), each as a segment with explicit `bottom`.
    func find(_ analysis: SpineSegmenter.Analysis) -> [StripSegment] {
        let sv = analysis.smoothed
        let w = sv.width, hs = sv.height
        guard hs > 20, w > 20, analysis.stepMap.count == w * hs else { return [] }
        let edges = longEdges(analysis)
        guard !edges.isEmpty else { return [] }
        let tMin = max(4, Int(Double(hs) * minThickness)), tMax = Int(Double(hs) * maxThickness)
        var books: [StripSegment] = []
        var lower = hs
        var span: (a: Int, b: Int)? = nil
        while true {
            let candidates = edges.filter { e in
                guard lower - e.line >= tMin, lower - e.line <= tMax else { return false }
                guard let span else { return true }
                let overlap = min(span.b, e.b) - max(span.a, e.a)
                return Double(overlap) >= 0.5 * Double(min(span.b - span.a, e.b - e.a))
            }
            // The nearest edge that is not much weaker than the strongest one (a weak edge may be a text line).
            let strongest = candidates.map(\.strength).max() ?? 0
            guard let edge = candidates.filter({ $0.strength >= nearStrength * strongest }).max(by: { $0.line < $1.line })
            else { break }
            guard crossings(analysis, lines: edge.line..<lower, a: edge.a, b: edge.b) <= 1 else { break }
            books.append(StripSegment(
                u0: edge.a, u1: edge.b, top: edge.line, confidence: 0.5,
                color: SpineSegmenter.medianColor(analysis.colors, cols: edge.a..<edge.b, lines: edge.line..<lower),
                bottom: lower, lying: true))
            lower = edge.line
            span = (edge.a, edge.b)
        }
        return books
    }

    /// Long, dense horizontal edges below the shelf board, one per local maximum of strength.
    func longEdges(_ analysis: SpineSegmenter.Analysis) -> [Edge] {
        let w = analysis.smoothed.width, hs = analysis.smoothed.height
        let threshold = analysis.step * edgeFactor
        let minLength = Int(Double(hs) * minLengthFraction)
        var runs: [Edge] = []
        let first = max(3, analysis.boardLine + 6), last = hs - 3
        guard last > first else { return [] }
        analysis.stepMap.withUnsafeBufferPointer { m in
            for v in first..<last {
                var start = -1, lastOn = -1, on = 0
                var sum: Float = 0
                func close() {
                    if start >= 0, lastOn + 1 - start >= minLength,
                        Double(on) >= minDensity * Double(lastOn + 1 - start) {
                        runs.append(Edge(line: v, a: start, b: lastOn + 1, strength: sum))
                    }
                    start = -1; on = 0; sum = 0
                }
                for u in 0..<w {
                    let value = m[v * w + u]
                    if value > threshold {
                        if start < 0 { start = u } else if u - lastOn - 1 > maxGap { close(); start = u }
                        lastOn = u; on += 1; sum += value
                    }
                }
                close()
            }
        }
        // Keep runs that are the strongest among overlapping runs within ±4 lines.
        return runs.filter { r in
            !runs.contains { o in
                o != r && abs(o.line - r.line) <= 4 && min(o.b, r.b) - max(o.a, r.a) > 0
                    && (o.strength > r.strength || (o.strength == r.strength && o.line > r.line))
            }
        }
    }

    /// Number of separate column groups inside `a..<b` whose horizontal colour change runs down the band.
    func crossings(_ analysis: SpineSegmenter.Analysis, lines: Range<Int>, a: Int, b: Int) -> Int {
        let sv = analysis.smoothed
        let w = sv.width
        guard lines.count >= 8, b - a > 10 else { return 0 }
        let inner = (lines.lowerBound + 3)..<(lines.upperBound - 3)
        var groups = 0, previous = -10
        sv.data.withUnsafeBufferPointer { s in
            let margin = max(4, Int(Double(b - a) * endMargin))
            guard b - margin > a + margin else { return }
            for u in (a + margin)..<(b - margin) where u > 0 && u < w - 1 {
                var n = 0
                for v in inner {
                    var e: Float = 0
                    for c in 0..<3 { e += abs(s[(v * w + u + 1) * 3 + c] - s[(v * w + u - 1) * 3 + c]) }
                    if e > analysis.step { n += 1 }
                }
                if Double(n) >= crossingFraction * Double(inner.count) {
                    if u - previous > 2 { groups += 1 }
                    previous = u
                }
            }
        }
        return groups
    }

    /// Replaces the upright candidates that are slices of the stack by the lying books, ordered left to right.
    func merge(upright: [StripSegment], lying: [StripSegment], height: Int) -> [StripSegment] {
        guard let first = lying.first else { return upright }
        var a = first.u0, b = first.u1, top = first.top
        for book in lying { a = min(a, book.u0); b = max(b, book.u1); top = min(top, book.top) }
        let slack = Int(Double(height) * 0.1)
        let kept = upright.filter { s in
            let centre = (s.u0 + s.u1) / 2
            return centre < a || centre >= b || s.top < top - slack
        }
        return (kept + lying).sorted { ($0.u0, $0.top) < ($1.u0, $1.top) }
    }
}
