import ScanProtocol

/// Parts a box that holds several standing books, on the evidence of their lettering: a box at least
/// `wideShare` times as wide as the typical standing box of its row, with surely read lines side by side on it
/// (columns further apart than half their thicknesses), is cut between the columns, one book each. On real photos
/// the segmenter misses the edge between look-alike books and lists two to four as one box, whose one title then
/// stands for all (docs/log/real-photos.md, "Real photos, eighth step"); a single wide book holds its title and its author
/// side by side as often, so the width decides first.
package struct MergedSpineSplitter: Sendable {
    /// A box is wide enough to hold several books at this many times the median width of its row's standing boxes.
    static let wideShare = 2.0
    /// Lines that count as a book's lettering: read at least this surely...
    static let sureConfidence = 0.9
    /// ...with at least this many letters.
    static let minimumLetters = 5
    /// Rows need this many standing boxes for their median width to stand for a book's.
    static let boxesNeeded = 3

    /// Where each of `spines` (in `rows`, parallel) is cut, as fractions across it from its left side (its outline's
    /// top-left to top-right corner), in order; empty for a spine that stays whole. `lines` are the photo's, in an
    /// upright photo `photoWidth` × `photoHeight` pixels.
    func cuts(_ spines: [SpineOutline], rows: [Int], lines: [PhotoLine], photoWidth: Int, photoHeight: Int) -> [[Double]] {
        let frames = spines.map { SpineFrame($0, imageWidth: photoWidth, imageHeight: photoHeight) }
        var widths: [Int: [Double]] = [:]
        for i in spines.indices where i < rows.count && spines[i].pose != .lying { widths[rows[i], default: []].append(frames[i].width) }
        let typical = widths.filter { $0.value.count >= Self.boxesNeeded }.compactMapValues(\.median)
        return spines.indices.map { i in
            guard i < rows.count, spines[i].pose != .lying, let width = typical[rows[i]], frames[i].width >= Self.wideShare * width else { return [] }
            let onSpine = lines.filter { line in
                line.orientation != .horizontal && line.confidence >= Self.sureConfidence
                    && line.text.filter(\.isLetter).count >= Self.minimumLetters && LineTitles.contains(spines[i], line.center)
            }
            return Self.cuts(across: frames[i], lines: onSpine, photoWidth: photoWidth, photoHeight: photoHeight)
        }
    }

    /// The cuts (fractions across `frame`) between the columns of `lines`: lines side by side further apart than half
    /// their two thicknesses stand in two columns; each cut lies halfway between two columns' mean places.
    static func cuts(across frame: SpineFrame, lines: [PhotoLine], photoWidth: Int, photoHeight: Int) -> [Double] {
        let placed = lines.map { line -> (offset: Double, thickness: Double) in
            let dx = line.center.x * Double(photoWidth) - frame.centerX, dy = line.center.y * Double(photoHeight) - frame.centerY
            return (dx * frame.normalX + dy * frame.normalY, line.thickness)
        }.sorted { $0.offset < $1.offset }
        var columns: [[(offset: Double, thickness: Double)]] = []
        for line in placed {
            if let last = columns.last?.last, line.offset - last.offset < (last.thickness + line.thickness) / 2 {
                columns[columns.count - 1].append(line)
            } else {
                columns.append([line])
            }
        }
        guard columns.count >= 2 else { return [] }
        let places = columns.map { column in column.reduce(0) { $0 + $1.offset } / Double(column.count) }
        return zip(places, places.dropFirst()).map { left, right in
            min(1, max(0, ((left + right) / 2) / frame.width + 0.5))
        }
    }

    /// The outlines of the pieces `cuts` (fractions across, in order) part `outline` into, left to right: each cut
    /// runs from its top side to its bottom side (`outline` as four corners from the top-left, clockwise).
    package static func pieces(of outline: SpineOutline, cuts: [Double]) -> [SpineOutline] {
        guard !cuts.isEmpty, let corners = outline.polygon, corners.count == 4 else { return [outline] }
        let bounds = [0] + cuts + [1]
        return zip(bounds, bounds.dropFirst()).map { from, to in
            let piece = [
                point(corners[0], corners[1], from), point(corners[0], corners[1], to), point(corners[3], corners[2], to),
                point(corners[3], corners[2], from),
            ]
            let xs = piece.map(\.x), ys = piece.map(\.y)
            let x0 = xs.min() ?? 0, y0 = ys.min() ?? 0
            return SpineOutline(
                box: NormalizedBox(x: x0, y: y0, width: (xs.max() ?? x0) - x0, height: (ys.max() ?? y0) - y0), pose: outline.pose, polygon: piece)
        }
    }

    /// The point `share` of the way from `a` to `b`.
    static func point(_ a: NormalizedPoint, _ b: NormalizedPoint, _ share: Double) -> NormalizedPoint {
        NormalizedPoint(x: a.x + share * (b.x - a.x), y: a.y + share * (b.y - a.y))
    }

    /// The texts of `pieces`, parted from one spine that read `text`: the piece with a line that holds the title
    /// read (within `LineCheck.misreadDistance` edits per letter) keeps it; the others, and all of them when no
    /// line holds it, start without a title (a title read across several books is any one's as likely).
    static func texts(of pieces: [SpineOutline], reading text: SpineText, lines: [PhotoLine]) -> [SpineText] {
        let letters = Array(SpineReader.letters(text.title ?? ""))
        let holder = letters.isEmpty ? nil : pieces.firstIndex { piece in
            lines.contains { line in
                LineTitles.contains(piece, line.center)
                    && Double(LineTitles.editDistance(letters, Array(SpineReader.letters(line.text)), inside: true))
                        <= LineCheck.misreadDistance * Double(letters.count)
            }
        }
        return pieces.indices.map { i in
            i == holder ? text : SpineText(title: nil, author: nil, text: nil, confidence: 0, orientation: text.orientation)
        }
    }
}
