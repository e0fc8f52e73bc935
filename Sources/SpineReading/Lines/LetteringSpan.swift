import ScanProtocol

/// Where the lettering of one standing line of the photo lies across the spines: the middle of its letters'
/// height (normalised x, `x0` to `x1`) at the line's centre (normalised `y`). Letters never stand on two books,
/// so the spines a span crosses are pieces of one (`LetteringJoiner` in ScanEngine).
package struct LetteringSpan: Sendable, Hashable {
    package var x0: Double
    package var x1: Double
    package var y: Double

    package init(x0: Double, x1: Double, y: Double) {
        self.x0 = x0
        self.x1 = x1
        self.y = y
    }

    /// Lines read at least this surely count (an unsure detection is often wider than its letters).
    static let minimumConfidence = 0.8
    /// ...with at least this many letters.
    static let minimumLetters = 3
    /// The share of a line's thickness across its middle that is taken for its letters: the detector's box holds
    /// a margin around them (measured on both sets with 0.5, 0.7 and 1; docs/log/real-photos.md, "Real photos, sixth step").
    static let coreShare = 0.5

    /// The spans of the lines of `lines` that run along standing spines, read surely, on a photo `photoWidth`
    /// pixels wide.
    static func spans(_ lines: [PhotoLine], photoWidth: Int) -> [LetteringSpan] {
        let w = Double(max(1, photoWidth))
        return lines.compactMap { line in
            guard line.orientation != .horizontal, line.confidence >= minimumConfidence,
                line.text.unicodeScalars.filter({ $0.properties.isAlphabetic }).count >= minimumLetters
            else { return nil }
            let half = coreShare * line.thickness / 2 / w
            return LetteringSpan(x0: line.center.x - half, x1: line.center.x + half, y: line.center.y)
        }
    }
}

/// What reading the photo's own lines gave (`ShelfReader.fillTitlesFromLines`): where each spine is cut into the
/// books it holds (fractions across it, empty for most: `MergedSpineSplitter`), the texts of the spines as cut
/// (each cut spine's pieces in its place, left to right) with titles filled, and where the lettering of its
/// standing lines lies.
package struct LineReading: Sendable {
    package var texts: [SpineText]
    package var spans: [LetteringSpan]
    package var cuts: [[Double]]
    /// The photo's text lines as the title decision weighs them (`TitleChoice`); empty when none were read.
    package var lines: [RecordedLine]

    package init(texts: [SpineText], spans: [LetteringSpan] = [], cuts: [[Double]] = [], lines: [RecordedLine] = []) {
        self.texts = texts
        self.spans = spans
        self.cuts = cuts
        self.lines = lines
    }
}
