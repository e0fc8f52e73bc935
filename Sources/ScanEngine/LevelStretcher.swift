/// Stretches the levels of a dim working image so that its darkest and brightest samples span 0...255.
///
/// Detection's thresholds are colour steps in levels (`SpineSegmenter.minStep` and the like), and in a photo
/// taken in poor light every step is smaller: dark books on a near-black back (shelf_037, light at 0.46) showed
/// no step the segmenter would take, and had no box. Stretched, a dim photo's steps are as large as a bright
/// one's; grain grows with them, and the thresholds that follow the strip's own noise follow it. On the 40
/// evaluation photos spine F1 90.1 → 91.0 % (hard tier 86.5 → 88.0 %, easy unchanged); 90.8 % stretching every
/// photo (easy 94.3 → 91.7 %: full-range photos gained nothing and lost to stretched grain), 90.6–90.9 % with
/// the 0.5 / 99.5 % or 0.1 / 99.9 % percentiles or a limit of 220–240. Reading is done on the photo as stored,
/// but from the boxes found here: exact titles 32.4 → 32.1 % (a box that moved by a line or a column reads a
/// little differently: 125 exact titles before among the books whose box moved, 117 after).
struct LevelStretcher: Sendable {
    /// Shares of all samples (three per pixel) below the level taken for black and for white.
    var darkShare = 0.01
    var brightShare = 0.99
    /// Photos whose black-to-white range is at least this many levels are left as they are.
    var maxRange = 200

    /// `image` with its levels stretched, when it is dim; unchanged otherwise.
    func stretched(_ image: consuming WorkImage) -> WorkImage {
        var out = consume image
        var histogram = [Int](repeating: 0, count: 256)
        for v in out.pixels { histogram[Int(v)] += 1 }
        let black = Self.level(histogram, share: darkShare, of: out.pixels.count)
        let white = Self.level(histogram, share: brightShare, of: out.pixels.count)
        guard white > black, white - black < maxRange else { return out }
        let table = (0..<256).map { UInt8(max(0, min(255, ($0 - black) * 255 / (white - black)))) }
        out.pixels.withUnsafeMutableBufferPointer { p in
            for k in p.indices { p[k] = table[Int(p[k])] }
        }
        return out
    }

    /// The lowest level at or below which more than `share` of the `count` samples of `histogram` lie.
    static func level(_ histogram: [Int], share: Double, of count: Int) -> Int {
        let target = Int(share * Double(count))
        var seen = 0
        for (level, n) in histogram.enumerated() {
            seen += n
            if seen > target { return level }
        }
        return 255
    }
}
