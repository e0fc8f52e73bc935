import ImageKit

/// A word's letter size measured on the strip's own pixels rather than taken from Tesseract's boxes.
/// The LSTM engine's word and letter boxes often span the whole strip ("GOLDEN" 69 px next to "THE"
/// 30 px on one line of one size), which split titles into groups of "different" sizes; the ink
/// between a word's left and right edge does not lie.
enum WordInk {
    /// Ink is what is darker than halfway between the box's dark and light ends (its 5th and 95th
    /// percentiles): a prepared strip's lettering is not always black ("The Descent of Man" in mid gray
    /// beside black bands; a fixed level of 128 saw 2 px of ink in 35 px letters). A box whose ends are
    /// closer than `minimumContrast` levels holds no lettering to measure.
    static let minimumContrast = 40

    /// The gray level below which a mark Tesseract could not read is ink: only plainly dark ink. Faint
    /// texture or a label's edge measured against its own box's ends looks as tall as lettering, and such
    /// a mark taller than the title withholds the title (`SpineReader`'s "larger unread" check).
    static let darkInkLevel = 128

    /// Words Tesseract is less sure of (0–100) than this are measured by `darkInkLevel` too: a doubtful
    /// short word read in texture ("is" 68 under a title) would otherwise measure as tall as the title.
    static let measuredConfidence = 80.0

    /// The gray level below which a pixel of the box is ink, nil when the box has too little contrast.
    static func inkLevel(_ image: GrayImage, left l: Int, top t: Int, right r: Int, bottom b: Int) -> Int? {
        var histogram = GrayHistogram()
        image.pixels.withUnsafeBufferPointer { p in
            for y in t..<b {
                for x in l..<r { histogram.add(p[y * image.width + x]) }
            }
        }
        let dark = histogram.percentile(0.05), light = histogram.percentile(0.95)
        return light - dark >= minimumContrast ? (dark + light + 1) / 2 : nil
    }

    /// A row is part of the word when it holds at least this share of the word's fullest row's ink (and
    /// at least one pixel): low enough that the thin stem of a lone ascender ("J" of "Journey") counts.
    /// On the 40 photos: exact titles 23.4 % at 0.02 and 0.03, 22.2 % at 0.10, 21.6 % without the ink.
    static let rowShare = 0.02

    /// The height in pixels of the run of inked rows under the word's box that holds the fullest row of
    /// the box's middle half; the run may reach a quarter of the box's height past its top and bottom
    /// (a box cut short). Nil when the box holds no ink. `darkOnly`: ink is below `darkInkLevel` (for
    /// words Tesseract is less than `measuredConfidence` sure of), else below the box's own `inkLevel`.
    static func inkHeight(_ image: GrayImage, left: Int, top: Int, right: Int, bottom: Int, darkOnly: Bool = false) -> Int? {
        let l = max(0, left), r = min(image.width, right)
        let boxTop = max(0, top), boxBottom = min(image.height, bottom)
        guard r > l, boxBottom > boxTop,
            let level = (darkOnly ? darkInkLevel : inkLevel(image, left: l, top: boxTop, right: r, bottom: boxBottom)).map({ UInt8($0) })
        else { return nil }
        let reach = (boxBottom - boxTop) / 4
        let t = max(0, boxTop - reach), b = min(image.height, boxBottom + reach)
        var counts = [Int](repeating: 0, count: b - t)
        image.pixels.withUnsafeBufferPointer { p in
            for y in t..<b {
                var n = 0
                for x in l..<r where p[y * image.width + x] < level { n += 1 }
                counts[y - t] = n
            }
        }
        // The fullest row is looked for in the middle half of the box: a box reaching into the line
        // above or below must not seed on that line's ink.
        let seedTop = boxTop - t + (boxBottom - boxTop) / 4, seedBottom = max(seedTop + 1, boxBottom - t - (boxBottom - boxTop) / 4)
        var fullest = seedTop
        for y in seedTop..<seedBottom where counts[y] > counts[fullest] { fullest = y }
        guard counts[fullest] > 0 else { return nil }
        let needed = max(1, Int((rowShare * Double(counts[fullest])).rounded(.up)))
        var first = fullest, last = fullest
        while first > 0, counts[first - 1] >= needed { first -= 1 }
        while last < counts.count - 1, counts[last + 1] >= needed { last += 1 }
        return last - first + 1
    }

    /// The cap height that an ink height means for `text`: capitals, digits and ascenders reach the
    /// cap line (x-height letters only reach 1/1.38 of it); a descender adds about a third of it.
    /// Nil when the word has no letter or digit.
    static func capHeight(ink: Int, text: String) -> Double? {
        let letters = text.filter { $0.isLetter || $0.isNumber }
        guard !letters.isEmpty else { return nil }
        let tall = letters.contains { $0.isUppercase || $0.isNumber || "bdfhklt".contains($0) }
        let descends = letters.contains { "gjpqy".contains($0) }
        let top = tall ? 1.0 : 1 / 1.38
        let depth = descends ? 0.32 : 0
        return Double(ink) / (top + depth)
    }
}
