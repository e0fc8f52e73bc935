import ScanProtocol

/// Joins neighbours that are one book cut in two along the edge of its lettering: the same colour, the same top,
/// no seam, and no boundary down the common height (the cut rested on the part of the column beside the letters).
/// Of the cuts inside a book on the 40 evaluation photos a third are like this (a title and its author in two
/// columns, a plain margin beside the lettering); joining them took spine F1 85.9 → 86.6 % (false positives
/// 463 → 421, three more books found). With colours 45 apart and evidence under the full threshold: 86.5 %.
struct SplitBookJoiner: Sendable {
    /// Largest difference of the two median colours (|ΔR| + |ΔG| + |ΔB|).
    var maxColourDifference = 30
    /// Largest difference of the two tops, in strip lines.
    var maxTopDifference = 4
    /// The boundary evidence along the cut (15th percentile over the middle three fifths of the common height)
    /// must stay under this share of the strip's peak threshold.
    var evidenceShare: Float = 0.75

    /// `found` (left to right, from `analysis`) with the split books joined.
    func join(_ found: [StripSegment], _ a: SpineSegmenter.Analysis, seamDepth: [Float], minSeamDepth: Float) -> [StripSegment] {
        var out: [StripSegment] = []
        for next in found {
            guard let last = out.last, last.u1 == next.u0, !last.lying, !next.lying, last.lean == nil, next.lean == nil,
                shouldJoin(last, next, a, seamDepth: seamDepth, minSeamDepth: minSeamDepth)
            else {
                out.append(next)
                continue
            }
            var joined = last
            joined.u1 = next.u1
            joined.top = min(last.top, next.top)
            joined.confidence = max(last.confidence, next.confidence)
            let cols = joined.u1 - joined.u0 > 3 ? (joined.u0 + 1)..<joined.u1 : joined.u0..<joined.u1
            joined.color = SpineSegmenter.medianColor(a.colors, cols: cols, lines: joined.top..<a.colors.height)
            out[out.count - 1] = joined
        }
        return out
    }

    private func shouldJoin(
        _ left: StripSegment, _ right: StripSegment, _ a: SpineSegmenter.Analysis, seamDepth: [Float], minSeamDepth: Float
    ) -> Bool {
        let w = a.smoothed.width, hs = a.smoothed.height, u = left.u1
        guard u > 2, u < w - 3, abs(left.top - right.top) <= maxTopDifference else { return false }
        let dc = abs(Int(left.color.r) - Int(right.color.r)) + abs(Int(left.color.g) - Int(right.color.g))
            + abs(Int(left.color.b) - Int(right.color.b))
        guard dc <= maxColourDifference else { return false }
        if u < seamDepth.count, seamDepth[u] >= minSeamDepth { return false }
        let lo = max(left.top, right.top) + 2, hi = hs - 2
        let n = hi - lo
        guard n >= 10 else { return false }
        var evidence: [Float] = []
        evidence.reserveCapacity(n)
        a.smoothed.data.withUnsafeBufferPointer { s in
            for v in (lo + n / 5)..<(hi - n / 5) {
                evidence.append(SpineSegmenter.boundaryEvidence(s, width: w, line: v, column: u))
            }
        }
        return Signal.percentile(evidence, 15) < evidenceShare * a.threshold
    }
}
