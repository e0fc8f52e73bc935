import ScanProtocol

/// A spine found in a row strip: columns `u0..<u1` (cut positions), strip lines `top..<bottom`, confidence, colour.
struct StripSegment: Sendable, Equatable {
    var u0: Int
    var u1: Int
    var top: Int
    var confidence: Double
    var color: RGBColor
    /// Strip line below the spine (the strip height for books standing on the bottom line).
    var bottom: Int? = nil
    /// Set for books lying flat in a stack.
    var lying = false
    /// For a leaning book: columns its edges move per strip line upwards (tan of the lean); `u0`/`u1` are then
    /// the edges' columns on the bottom line.
    var lean: Double? = nil

    /// Corners in strip space (column, height above the bottom line), clockwise from the top-left one, for a strip
    /// of `height` lines and `width` columns.
    func corners(height: Int, width: Int) -> [(u: Double, h: Double)] {
        let u0 = Double(self.u0) + 0.5, u1 = Double(min(self.u1, width - 1)) + 0.5
        let hb = Double(height - top)
        let ha = Double(height - min(height, bottom ?? height))
        let t = lean ?? 0
        return [(u0 + hb * t, hb), (u1 + hb * t, hb), (u1 + ha * t, ha), (u0 + ha * t, ha)]
    }
}

/// Splits a row strip into spines: per-column boundary evidence (colour steps and dark seams that run
/// down the whole common height of both neighbours, plus jumps in the top profile), peak picking, faint seams
/// between look-alike neighbours (`SeamFinder`), then a top edge per candidate found as the first real step
/// below the shelf board.
struct SpineSegmenter: Sendable {
    /// Minimum / cap of the vertical step threshold (sum of three channels).
    var minStep: Float = 22
    var maxStep: Float = 45
    /// Percentile of the per-pixel boundary evidence along a column.
    var evidencePercentile: Float = 15
    /// A column's boundary evidence is also taken over the lower `lowerEvidenceShare` of its height alone,
    /// weighted by `lowerEvidenceWeight` (a boundary there must be stronger), and the larger counts: books
    /// under a book lying across them or a stack behind (the span's upper part one object, no boundary)
    /// still part where they stand. On the real set (2026-11-28): spine recall 74.2 → 85.9 %, precision
    /// 37.1 → 39.6 %; on the 40 generated photos F1 91.0 → 90.8 %. Shares 0.5–0.8 and weights 0.5–1 all lie
    /// within 84–89 % / 90.2–90.9 % (docs/log/real-photos.md, "Real photos, third step"); 0 turns it off.
    var lowerEvidenceShare: Double = 0.7
    var lowerEvidenceWeight: Float = 0.6
    /// Peak threshold as a fraction of the 98th percentile of the boundary evidence.
    var peakFraction: Float = 0.2
    /// Peak threshold floor as a multiple of the median evidence.
    var noiseMultiple: Float = 3
    /// Top-profile jumps above this many lines count as boundary evidence, weighted by `jumpWeight`.
    var jumpLines: Float = 6
    var jumpWeight: Float = 0.5
    /// Half-size of the median filter that steadies the top profile before looking for jumps.
    var jumpSide = 3
    /// A top step must change the mean colour by this multiple of the step threshold.
    /// With tops also taken against the spine's colour, 1.5 → 1.1 took spine F1 88.5 → 89.0 % (hard tier 84.9 →
    /// 85.3 %; 88.7 % at 1.3, 89.0 % at 0.9 with more false boxes).
    var topContrast: Float = 1.1
    /// Lines skipped below the shelf-board line before looking for book tops (blur footprint).
    var boardSkip = 6
    /// Non-maximum suppression radius (columns) for boundary peaks.
    var peakRadius = 5
    /// Candidates shorter than this fraction of the strip are gaps.
    var minHeightFraction: Double = 0.12
    /// Share of columns whose first step on one line near the strip top marks that line as the shelf board.
    var boardShare: Double = 0.2
    /// Share of columns that must step on a horizontal edge near the strip top for it to be the shelf board's
    /// edge. On shelf_008 the tops of a few books in line (20 % of the columns) won, and the taller books
    /// were cut off there: spine F1 on the 40 photos 82.5 → 83.0 % (the same from 0.3 to 0.7); finding a
    /// blurred board edge by this share too (shelf_011, where slivers ran up to the board): 83.4 %.
    var boardAcross: Double = 0.5
    /// Share of columns that must step over 8 lines for a board edge blurred beyond 4 lines. On shelf_039 (blur
    /// σ 3.7 px) a board edge fading over a dozen lines was missed, and every box of the row reached up to it:
    /// spine F1 on the 40 photos 89.0 → 89.5 %, hard tier 85.3 → 86.2 % (the same from 0.55 to 0.7; at 0.5 the
    /// tops of books in line on shelf_006 were taken for it). Above 1 turns the wider look off.
    var wideBoardAcross: Double = 0.6
    /// A top step is also taken when the colour above it differs enough from the spine's own colour (the median of
    /// the lines below it), not only from the dozen lines just below it: light bands printed near a dark spine's
    /// top brought those lines' mean back to the wall's colour, no top was taken, and the book was dropped as a gap
    /// (shelf_013, two purple and red books). On the 40 photos: spine F1 88.2 → 88.5 %, hard tier 84.5 → 84.9 %.
    var topsAgainstSpineColour = true
    /// Faint seams between neighbours that look alike, added to the cuts the boundary evidence found.
    var seams = SeamFinder()
    /// Neighbours that are one book cut along its lettering, joined again.
    var joiner = SplitBookJoiner()

    /// Everything needed to evaluate the candidates of one strip.
    struct Analysis: Sendable {
        var smoothed: RowStrip
        /// The unsmoothed strip's colours, for spine colours.
        var colors: StripColors
        var cuts: [Int]
        var score: [Float]
        var threshold: Float
        var boardLine: Int
        var step: Float
        /// Vertical colour step over 5 lines per strip pixel (`height * width`).
        var stepMap: [Float] = []
        /// Seam depth per column (`SeamFinder.depth`).
        var seamDepth: [Float] = []
    }

    /// Computes the boundary evidence and the candidate cuts of a strip.
    func analyse(_ strip: consuming RowStrip) -> Analysis {
        let colors = StripColors(strip)
        var sv = consume strip
        sv.smoothVertically()
        let w = sv.width, hs = sv.height
        var boardLine = 0
        var boardFromBlurredEdge = false
        var step: Float = minStep
        var stepMap = [Float](repeating: 0, count: w * hs)
        var tops = [Float](repeating: Float(hs), count: w)
        var evidence = [Float](repeating: 0, count: w)
        var bookTops: [Float] = []
        sv.data.withUnsafeBufferPointer { s in
            // Shelf-board edge near the top: the strongest horizontal edge in the top 30 % when at least
            // `boardAcross` of the columns step there (the tops of a few books in line step only in theirs, and
            // books rising above them would be cut off); else, as a blurred edge steps little per line, the
            // line in the top 30 % where most columns step over 4 lines, when at least `boardAcross` do, or over
            // 8 lines, when at least `wideBoardAcross` do.
            if hs > 2 {
                var gv = [Float](repeating: 0, count: hs - 2)
                for v in 0..<(hs - 2) {
                    var t: Float = 0
                    for i in 0..<(w * 3) { t += abs(s[(v + 2) * w * 3 + i] - s[v * w * 3 + i]) }
                    gv[v] = t / Float(w)
                }
                let lim = min(gv.count, max(3, Int(Double(hs) * 0.3)))
                let k = Signal.argmax(gv[0..<lim])
                if gv[k] > 3 * Signal.median(gv), Self.steppingShare(s, width: w, line: k, span: 2, threshold: minStep) >= boardAcross {
                    boardLine = k + 3
                } else {
                    for (span, needed) in [(4, boardAcross), (8, wideBoardAcross)] where hs > span && !boardFromBlurredEdge {
                        var bestShare = 0.0, bestLine = 0
                        for v in 0..<min(lim, hs - span) {
                            let share = Self.steppingShare(s, width: w, line: v, span: span, threshold: minStep)
                            if share > bestShare { (bestShare, bestLine) = (share, v) }
                        }
                        if bestShare >= needed {
                            boardLine = bestLine + span + 1
                            boardFromBlurredEdge = true
                        }
                    }
                }
            }
            // Vertical colour steps over 5 lines.
            if hs > 5 {
                for v in 3..<(hs - 2) {
                    for u in 0..<w {
                        var t: Float = 0
                        for c in 0..<3 { t += abs(s[((v + 2) * w + u) * 3 + c] - s[((v - 3) * w + u) * 3 + c]) }
                        stepMap[v * w + u] = t
                    }
                }
            }
            func noiseStep(_ board: Int) -> Float {
                let bandHeight = max(4, Int(Double(hs) * 0.05))
                let bandStart = min(hs, board + 3), bandEnd = min(hs, board + 3 + bandHeight)
                let noise = Signal.median(Array(stepMap[(bandStart * w)..<(bandEnd * w)]))
                return min(max(minStep, 3 * noise), maxStep)
            }
            // Per-column top: first strong step below the board (steps smoothed over 3 columns).
            func columnTops(_ board: Int, _ threshold: Float) -> [Float] {
                var out = [Float](repeating: Float(hs), count: w)
                var column = [Float](repeating: 0, count: hs)
                for u in 0..<w {
                    let ul = Signal.reflect(u - 1, w), ur = Signal.reflect(u + 1, w)
                    for v in 0..<hs { column[v] = (stepMap[v * w + ul] + stepMap[v * w + u] + stepMap[v * w + ur]) / 3 }
                    out[u] = Float(firstStep(column, from: board, threshold: threshold * 1.3, mean: nil))
                }
                return out
            }
            step = noiseStep(boardLine)
            tops = columnTops(boardLine, step)
            // A line where many columns find their "top" near the strip top is the board's lower edge, not books.
            // Not below a blurred board edge: there such a line was the tops of books in line (shelf_012).
            if !boardFromBlurredEdge, let edge = Self.sharedEdge(tops, limit: Int(Double(hs) * 0.3), minShare: boardShare),
                edge + 2 > boardLine
            {
                boardLine = edge + 2
                step = noiseStep(boardLine)
                tops = columnTops(boardLine, step)
            }
            tops = Signal.medianFilter(tops, size: 3)
            let topsMedian = tops
            bookTops = tops
            // Boundary evidence per column.
            var values: [Float] = []
            values.reserveCapacity(hs)
            for u in 0..<w {
                let vt = Int(max(topsMedian[max(0, u - 3)], topsMedian[min(w - 1, u + 3)]))
                let lo = vt + 2, hi = hs - 2
                guard hi - lo >= 4 else { continue }
                values.removeAll(keepingCapacity: true)
                for v in lo..<hi { values.append(Self.boundaryEvidence(s, width: w, line: v, column: u)) }
                evidence[u] = Signal.percentile(values, evidencePercentile)
                let lowerCount = Int(Double(values.count) * lowerEvidenceShare)
                if lowerCount >= 4 {
                    let lower = Signal.percentile(Array(values[(values.count - lowerCount)...]), evidencePercentile)
                    evidence[u] = max(evidence[u], lower * lowerEvidenceWeight)
                }
            }
        }
        let baseline = Signal.medianFilter(evidence, size: 21)
        // Tops without columns that flicker (texture, noise): a wider median keeps real steps and slopes.
        let steadyTops = Signal.medianFilter(tops, size: 2 * jumpSide + 1)
        var score = [Float](repeating: 0, count: w)
        for u in 0..<w {
            var jump: Float = 0
            if u >= 1 && u < w - 1 { jump = abs(steadyTops[u + 1] - steadyTops[u - 1]) }
            score[u] = evidence[u] - baseline[u] + (jump > jumpLines ? jump * jumpWeight : 0)
        }
        let threshold = max(peakFraction * Signal.percentile(evidence, 98), noiseMultiple * Signal.median(evidence) + 2)
        var cuts = [0]
        if w > 2 {
            for u in 1..<(w - 1) where score[u] >= threshold {
                let lo = max(0, u - peakRadius), hi = min(w - 1, u + peakRadius)
                guard score[u] == score[lo...hi].max() else { continue }
                if let last = cuts.last, cuts.count > 1, u - last <= peakRadius { continue }
                cuts.append(u)
            }
        }
        cuts.append(w)
        let seamDepth = seams.depth(sv, tops: bookTops)
        cuts = seams.cuts(adding: cuts, depths: seamDepth)
        return Analysis(
            smoothed: sv, colors: colors, cuts: cuts, score: score, threshold: threshold, boardLine: boardLine, step: step,
            stepMap: stepMap, seamDepth: seamDepth)
    }

    /// The candidates `found` in `a` (left to right) with books cut in two along their lettering joined again.
    func joiningSplitBooks(_ found: [StripSegment], _ a: Analysis) -> [StripSegment] {
        joiner.join(found, a, minSeamDepth: seams.minDepth)
    }

    /// Boundary evidence of one pixel of the interleaved RGB strip `s` (`width` columns): the colour step across it
    /// (three channels summed) plus three times how much darker it is than the darker of the pixels two columns to
    /// either side (a seam). Each term only where its neighbours exist.
    @inline(__always)
    static func boundaryEvidence(_ s: UnsafeBufferPointer<Float>, width w: Int, line v: Int, column u: Int) -> Float {
        // Luminance of a strip pixel (not kept for the whole strip: it would be a third strip-sized plane).
        @inline(__always) func lum(_ i: Int) -> Float { (s[i * 3] + s[i * 3 + 1] + s[i * 3 + 2]) / 3 }
        var e: Float = 0
        if u > 0 && u < w - 1 {
            for c in 0..<3 { e += abs(s[(v * w + u + 1) * 3 + c] - s[(v * w + u - 1) * 3 + c]) }
        }
        if u > 1 && u < w - 2 {
            let valley = min(lum(v * w + u - 2), lum(v * w + u + 2)) - lum(v * w + u)
            e += max(0, valley) * 3
        }
        return e
    }

    /// The share of columns whose colour (three channels summed) changes by more than `threshold` from
    /// `line` to `line + span` in the interleaved RGB strip `s` of `width` columns.
    static func steppingShare(_ s: UnsafeBufferPointer<Float>, width w: Int, line: Int, span: Int, threshold: Float) -> Double {
        var n = 0
        for u in 0..<w {
            var t: Float = 0
            for c in 0..<3 { t += abs(s[((line + span) * w + u) * 3 + c] - s[(line * w + u) * 3 + c]) }
            if t > threshold { n += 1 }
        }
        return Double(n) / Double(max(1, w))
    }

    /// The strip line (below `limit`) shared, within ±2 lines, by at least `minShare` of the column tops; nil if none.
    static func sharedEdge(_ tops: [Float], limit: Int, minShare: Double) -> Int? {
        guard limit > 0, !tops.isEmpty else { return nil }
        var hist = [Int](repeating: 0, count: limit + 1)
        for t in tops where t >= 0 && Int(t) < limit { hist[Int(t)] += 1 }
        var best = 0, bestLine = -1
        for v in 0..<limit {
            var n = 0
            for k in max(0, v - 2)...min(limit, v + 2) { n += hist[k] }
            if n > best { best = n; bestLine = v }
        }
        guard bestLine >= 0, Double(best) >= minShare * Double(tops.count) else { return nil }
        // The lowest line of the shared window that is populated.
        var last = bestLine
        for k in bestLine...min(limit, bestLine + 2) where hist[k] > 0 { last = k }
        return last
    }

    /// Evaluates the candidate between cuts `index` and `index + 1`; nil for gaps and slivers.
    func segment(_ a: Analysis, index: Int) -> StripSegment? {
        let u0 = a.cuts[index], u1 = a.cuts[index + 1]
        let w = a.smoothed.width, hs = a.smoothed.height
        guard u1 - u0 >= 2 else { return nil }
        let cols = u1 - u0 > 3 ? (u0 + 1)..<u1 : u0..<u1
        var mean = [Float](repeating: 0, count: hs * 3)
        a.smoothed.data.withUnsafeBufferPointer { s in
            for v in 0..<hs {
                for u in cols { for c in 0..<3 { mean[v * 3 + c] += s[(v * w + u) * 3 + c] } }
                for c in 0..<3 { mean[v * 3 + c] /= Float(cols.count) }
            }
        }
        var steps = [Float](repeating: 0, count: hs)
        if hs > 5 {
            for v in 3..<(hs - 2) {
                var t: Float = 0
                for c in 0..<3 { t += abs(mean[(v + 2) * 3 + c] - mean[(v - 3) * 3 + c]) }
                steps[v] = t
            }
        }
        let top = firstStep(steps, from: a.boardLine, threshold: a.step, mean: mean)
        guard Double(hs - top) >= Double(hs) * minHeightFraction else { return nil }
        let left = a.score[u0 > 0 ? u0 : min(u1, w - 1)], right = a.score[min(u1, w - 1)]
        let confidence = Double(min(1, max(0.05, (left + right) / (2 * a.threshold * 3))))
        return StripSegment(u0: u0, u1: u1, top: top, confidence: confidence, color: Self.medianColor(a.colors, cols: cols, lines: top..<a.colors.height))
    }

    /// First line at or below `from + boardSkip` where `steps` exceeds `threshold` (moved to the local maximum
    /// within 5 lines); with `mean` (per-line RGB), the colour above and below must also differ.
    func firstStep(_ steps: [Float], from boardLine: Int, threshold: Float, mean: [Float]?) -> Int {
        let hs = steps.count
        var v = boardLine + boardSkip
        while v < hs {
            guard let hit = (v..<hs).first(where: { steps[$0] > threshold }) else { return hs }
            let peak = Signal.argmax(steps[hit..<min(hs, hit + 5)])
            guard let mean else { return peak }
            let aRange = max(boardLine + boardSkip - 3, peak - 12)..<max(boardLine + boardSkip - 2, peak - 3)
            let bRange = min(hs - 1, peak + 3)..<min(hs, peak + 15)
            if !aRange.isEmpty, !bRange.isEmpty, aRange.upperBound <= hs {
                var diff: Float = 0, diffToSpine: Float = 0
                for c in 0..<3 {
                    var sa: Float = 0, sb: Float = 0
                    for i in aRange { sa += mean[i * 3 + c] }
                    for i in bRange { sb += mean[i * 3 + c] }
                    diff += abs(sa / Float(aRange.count) - sb / Float(bRange.count))
                    if topsAgainstSpineColour {
                        let below = (bRange.lowerBound..<hs).map { mean[$0 * 3 + c] }
                        diffToSpine += abs(sa / Float(aRange.count) - Signal.median(below))
                    }
                }
                if max(diff, diffToSpine) > topContrast * threshold { return peak }
            }
            v = peak + 3
        }
        return hs
    }

    /// Per-channel median colour of the strip region `lines` × `cols`.
    static func medianColor(_ strip: StripColors, cols: Range<Int>, lines: Range<Int>) -> RGBColor {
        var hist = [[Int]](repeating: [Int](repeating: 0, count: 256), count: 3)
        var n = 0
        strip.data.withUnsafeBufferPointer { s in
            for v in lines.clamped(to: 0..<strip.height) {
                for u in cols {
                    for c in 0..<3 { hist[c][Int(s[(v * strip.width + u) * 3 + c])] += 1 }
                    n += 1
                }
            }
        }
        func median(_ h: [Int]) -> UInt8 {
            var acc = 0
            for (i, count) in h.enumerated() {
                acc += count
                if 2 * acc >= n { return UInt8(i) }
            }
            return 0
        }
        guard n > 0 else { return RGBColor(r: 0, g: 0, b: 0) }
        return RGBColor(r: median(hist[0]), g: median(hist[1]), b: median(hist[2]))
    }
}
