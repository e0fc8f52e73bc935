import ImageKit

/// Labels: a light label with dark lettering on a dark spine with light lettering (THE RETURN OF
/// SHERLOCK HOLMES on a cream label, the author in cream on black). One polarity for the whole strip
/// turns one of the two into light letters on black, which Tesseract cannot read; so the strip is cut
/// where its background changes and each piece gets its own stretch and polarity.
extension StripPreparer {
    /// Backgrounds at least this far apart (gray levels, and this share of the strip's contrast) start a new piece.
    static let labelStep = 40
    static let labelStepShare = 0.3

    /// A piece narrower than this share of the strip's short side is a band or a seam, not a label.
    /// A wide spine's title label ("Kipps" light in a dark box) can be half as long as the spine is
    /// wide. On the 40 photos (2026-11-26, fourth session): exact titles 26.1 % (easy 77.8 %) at 0.6,
    /// 26.3 % (79.0 %) at 0.4, 26.3 % (79.4 %) at 0.3, 26.2 % (78.7 %) at 0.2.
    static let minimumPieceShare = 0.3

    /// The runs along the strip's long side whose backgrounds (median across the strip) differ; one
    /// range for a strip of one background. Ranges are in pixels along the long side.
    static func pieces(_ strip: GrayImage) -> [Range<Int>] {
        let alongX = strip.width >= strip.height
        let length = alongX ? strip.width : strip.height, across = alongX ? strip.height : strip.width
        guard length >= 2 * across else { return [0..<length] }
        // The median of each line across the strip (of every `stride`-th pixel on it: some 24 samples):
        // lettering covers less than half of a line, a label more.
        let stride = max(1, across / 24)
        var level = [Int](repeating: 0, count: length)
        var line = [UInt8](repeating: 0, count: (across + stride - 1) / stride)
        for i in 0..<length {
            for (k, j) in Swift.stride(from: 0, to: across, by: stride).enumerated() {
                line[k] = alongX ? strip.pixels[j * strip.width + i] : strip.pixels[i * strip.width + j]
            }
            line.sort()
            level[i] = Int(line[line.count / 2])
        }
        let sortedLevels = level.sorted()
        let spread = sortedLevels[length * 99 / 100] - sortedLevels[length / 100]
        let step = max(labelStep, Int(labelStepShare * Double(spread)))
        // A new piece where three lines in a row sit a step away from the piece's running mean.
        var cuts = [0]
        var sum = level[0], count = 1
        var i = 1
        while i < length {
            let mean = sum / count
            if i + 2 < length, (0..<3).allSatisfy({ abs(level[i + $0] - mean) >= step }) {
                cuts.append(i)
                sum = 0
                count = 0
            }
            sum += level[i]
            count += 1
            i += 1
        }
        cuts.append(length)
        var ranges = zip(cuts, cuts.dropFirst()).map { $0..<$1 }
        // Narrow pieces (bands, seams, the blur of a label's edge) join the neighbour closer in level.
        let minimum = Int(minimumPieceShare * Double(across))
        func mean(_ r: Range<Int>) -> Int { r.reduce(0) { $0 + level[$1] } / max(1, r.count) }
        while ranges.count > 1, let narrow = ranges.indices.filter({ ranges[$0].count < minimum }).min(by: { ranges[$0].count < ranges[$1].count }) {
            let m = mean(ranges[narrow])
            let left = narrow > 0 ? abs(mean(ranges[narrow - 1]) - m) : Int.max
            let right = narrow + 1 < ranges.count ? abs(mean(ranges[narrow + 1]) - m) : Int.max
            let into = left <= right ? narrow - 1 : narrow + 1
            let joined = min(ranges[into].lowerBound, ranges[narrow].lowerBound)..<max(ranges[into].upperBound, ranges[narrow].upperBound)
            ranges[min(into, narrow)] = joined
            ranges.remove(at: max(into, narrow))
        }
        // Neighbours left at one level (a band between them has joined one of them) are one piece.
        var k = 1
        while k < ranges.count {
            if abs(mean(ranges[k]) - mean(ranges[k - 1])) < step {
                ranges[k - 1] = ranges[k - 1].lowerBound..<ranges[k].upperBound
                ranges.remove(at: k)
            } else {
                k += 1
            }
        }
        return ranges
    }

    /// The strip stretched to dark lettering on a light background. When its pieces (see `pieces`)
    /// read different ways (dark on light, light on dark), piece by piece: each by its own levels and
    /// polarity when it holds lettering of its own (contrast at least `ownContrastShare` of the
    /// strip's), otherwise by the strip's; when they all read one way, as one.
    static func stretched(_ strip: GrayImage) -> GrayImage? {
        let whole = levels(strip.pixels)
        guard whole.hi - whole.lo >= 24 else { return nil }
        let alongX = strip.width >= strip.height
        // Each piece's pixels and the levels it is stretched by: its own when it holds lettering of its
        // own, otherwise the strip's.
        let cut = ReadingRule.labelPieces.isOn ? pieces(strip) : [0..<(alongX ? strip.width : strip.height)]
        // A strip of one piece (most of them) is stretched as one, without collecting its pixels again.
        let parts = cut.count < 2 ? [] : cut.map { piece -> (indices: [Int], levels: (lo: Int, median: Int, hi: Int)) in
            var indices: [Int] = []
            indices.reserveCapacity(piece.count * (alongX ? strip.height : strip.width))
            for y in (alongX ? 0..<strip.height : piece) {
                for x in (alongX ? piece : 0..<strip.width) { indices.append(y * strip.width + x) }
            }
            let own = levels(indices.map { strip.pixels[$0] })
            let ownContrast = Double(own.hi - own.lo) >= ownContrastShare * Double(whole.hi - whole.lo)
            return (indices, ownContrast ? own : whole)
        }
        // The background is the majority: when the median sits nearer the dark end, the text is light.
        func invert(_ l: (lo: Int, median: Int, hi: Int)) -> Bool { l.median - l.lo < l.hi - l.median }
        // Pieces that all read one way are stretched as one (`flattened` then evens their backgrounds).
        let oneWay = parts.allSatisfy { invert($0.levels) == invert(whole) }
        var out = strip
        func stretch<Indices: Sequence<Int>>(_ indices: Indices, by levels: (lo: Int, median: Int, hi: Int)) {
            let flip = invert(levels), range = Float(max(1, levels.hi - levels.lo))
            for i in indices {
                var v = min(1, max(0, (Float(strip.pixels[i]) - Float(levels.lo)) / range))
                if flip { v = 1 - v }
                out.pixels[i] = UInt8(v * 255 + 0.5)
            }
        }
        if oneWay {
            stretch(strip.pixels.indices, by: whole)
        } else {
            for part in parts { stretch(part.indices, by: part.levels) }
        }
        return out
    }

    /// A piece with less contrast than this share of the whole strip's is plain background, stretched
    /// with the strip (stretched alone, its grain would become letters).
    static let ownContrastShare = 0.4
}
