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
    /// Pieces of unequal width with lettering at the cut are joined whatever the boundary evidence: the narrower
    /// piece under `lopsidedShare` of the wider one's width, and the cut column brighter than the darker of the
    /// columns `SeamFinder.reach` away by at least `letteringContrast` luminance levels in one of the seam finder's
    /// stretches (its seam depth at most −`letteringContrast`). Neighbours in the same style are about as wide as
    /// each other, and a seam is darker than its sides, not lighter; the edge of a title is either. Of 117 cuts
    /// inside a book left standing on the 40 photos this joins 26, and 2 of 2,455 between books (at −15): spine F1
    /// 89.5 → 89.9 % (89.8–89.9 % from −12 to −25 and at 0.6–0.75; 34 and 7 joined at 0.75 / −10).
    var lopsidedShare = 0.7
    var letteringContrast: Float = 16

    /// `found` (left to right, from `analysis`) with the split books joined.
    func join(_ found: [StripSegment], _ a: SpineSegmenter.Analysis, minSeamDepth: Float) -> [StripSegment] {
        var out: [StripSegment] = []
        for next in found {
            guard let last = out.last, last.u1 == next.u0, !last.lying, !next.lying, last.lean == nil, next.lean == nil,
                shouldJoin(last, next, a, minSeamDepth: minSeamDepth)
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
        _ left: StripSegment, _ right: StripSegment, _ a: SpineSegmenter.Analysis, minSeamDepth: Float
    ) -> Bool {
        let seamDepth = a.seamDepth
        let w = a.smoothed.width, hs = a.smoothed.height, u = left.u1
        guard u > 2, u < w - 3, abs(left.top - right.top) <= maxTopDifference else { return false }
        let dc = abs(Int(left.color.r) - Int(right.color.r)) + abs(Int(left.color.g) - Int(right.color.g))
            + abs(Int(left.color.b) - Int(right.color.b))
        guard dc <= maxColourDifference else { return false }
        if u < seamDepth.count, seamDepth[u] >= minSeamDepth { return false }
        let narrow = min(left.u1 - left.u0, right.u1 - right.u0), wide = max(left.u1 - left.u0, right.u1 - right.u0)
        if Double(narrow) < lopsidedShare * Double(wide), u < seamDepth.count, seamDepth[u] <= -letteringContrast { return true }
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
