import ScanProtocol
import SpineReading

/// Drops the slivers, stubs and cut-off books reading showed are not books it can name: a spine with no title that
/// is both much narrower than the titled books of its row and far thinner than its own length, far shorter than the
/// photo's titled books, or cut off by the photo's left or right edge. On real photos these are the edges, shadows, gaps and pieces of one book the segmenter cuts,
/// and the feet of books a row found across them (docs/log/real-photos.md, "Real photos, sixth step"); a thin book of a
/// generated shelf is as narrow but less often that thin for its length. Spines are measured along their
/// outline: a leaning sliver's box is as wide as its lean ("Real photos, eighth step").
struct SliverVeto: Sendable {
    /// An untitled spine narrower than this share of the median titled spine of its row can go
    /// (measured on both sets with shares 0.5, 0.7 and 1: the share matters less than `thinShare`).
    static let narrowShare = 0.5
    /// ...when it is also thinner than this for its length (across over along, in pixels): a 24 cm book 8 mm
    /// thick. Measured on both sets with 0.03 to 0.05: 0.04 dropped 2 more real slivers, and 7 % more of the
    /// generated set's books under 20 pixels wide; 0.03 kept 6 more real slivers and no more books.
    static let thinShare = 0.035
    /// An untitled spine shorter (along, pixels) than this share of the photo's median titled spine goes: few
    /// books stand under a third as tall as the books read beside them (on both sets 0.25, 0.35 and 0.5 dropped
    /// no box that was a book).
    static let shortShare = 0.35
    /// An untitled spine whose box reaches this share of the photo's width from its left or right edge goes: a
    /// book the photo's edge cuts off, of which no title could be read (on the real set 12 such boxes were no
    /// book the scorer counts, 3 were; docs/log/real-photos.md, "Real photos, ninth step").
    static let edgeShare = 0.01

    /// Titled spines a row needs (else the photo's) for its median to stand for the books it holds.
    static let titledNeeded = 2

    let imageWidth: Int
    let imageHeight: Int

    /// `spines` without the slivers and stubs, indexed again in order; `rows` with their counts to match.
    func kept(_ spines: [Spine], rows: [ShelfRow]) -> (spines: [Spine], rows: [ShelfRow]) {
        let titled = spines.filter { $0.title != nil }
        let typicalLength = typical(titled.map(along))
        let photoWidth = typical(titled.map(across))
        let rowWidths = Dictionary(grouping: titled, by: \.row).compactMapValues { typical($0.map(across)) }
        let kept = spines.filter { spine in
            guard spine.title == nil else { return true }
            if titled.count >= Self.titledNeeded, Self.isCutOff(spine) { return false }
            if let typicalLength, along(spine) < Self.shortShare * typicalLength { return false }
            guard let width = rowWidths[spine.row] ?? photoWidth else { return true }
            return !isSliver(spine, typical: width)
        }
        return ResultNumbering.renumbered(kept, rows: rows)
    }

    /// Whether `spine` has no title and the photo's left or right edge cuts it (`edgeShare`); it goes when the photo
    /// has `titledNeeded` titled books or more (reading read this photo).
    static func isCutOff(_ spine: Spine) -> Bool {
        guard spine.title == nil else { return false }
        return spine.box.x <= edgeShare || spine.box.x + spine.box.width >= 1 - edgeShare
    }

    /// The median of `values` when there are `titledNeeded` or more of them.
    private func typical(_ values: [Double]) -> Double? {
        values.count >= Self.titledNeeded ? values.median : nil
    }

    /// Whether `spine` is an untitled sliver beside books `typical` pixels across.
    func isSliver(_ spine: Spine, typical: Double) -> Bool {
        guard spine.title == nil else { return false }
        let a = across(spine), l = along(spine)
        return a < Self.narrowShare * typical && l > 0 && a / l < Self.thinShare
    }

    /// Pixels across the spine's outline (`SpineFrame`: the mean length of its shorter pair of opposite sides). A
    /// leaning spine's box is wider than the spine by its lean; its outline is not.
    private func across(_ spine: Spine) -> Double {
        SpineFrame(spine.outline, imageWidth: imageWidth, imageHeight: imageHeight).width
    }

    /// Pixels along the spine's outline: the mean length of its longer pair of opposite sides.
    private func along(_ spine: Spine) -> Double {
        SpineFrame(spine.outline, imageWidth: imageWidth, imageHeight: imageHeight).length
    }
}
