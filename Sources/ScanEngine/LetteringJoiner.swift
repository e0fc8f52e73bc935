import ScanProtocol
import SpineReading

/// Joins the pieces of one book the segmenter cut apart, on the evidence of its lettering: letters never stand
/// on two books, so the upright spines of one row that the lettering of one line of the photo crosses
/// (`LetteringSpan`) are one book, unless two of them were given different titles. On real photos a spine is
/// often cut along the edges of its own letters or its printed bands (docs/log/real-photos.md, "Real photos, sixth step").
struct LetteringJoiner: Sendable {
    /// A spine is crossed when the lettering overlaps it by at least this share of the lettering's width
    /// (0.15 and 0.3 measured alike on both sets).
    static let crossedShare = 0.15

    /// `spines` with the pieces each span crosses joined into the piece that holds the title (else the widest):
    /// its box the union of theirs, indexed again in order; `rows` with their counts to match.
    func joined(_ spines: [Spine], rows: [ShelfRow], lettering: [LetteringSpan]) -> (spines: [Spine], rows: [ShelfRow]) {
        var group = Array(spines.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while group[i] != i { i = group[i] }
            return i
        }
        for span in lettering {
            let crossed = crossedSpines(spines, span: span)
            guard crossed.count >= 2, Set(crossed.map { spines[$0].row }).count == 1,
                Set(crossed.compactMap { spines[$0].title }).count <= 1
            else { continue }
            for i in crossed.dropFirst() { group[root(i)] = root(crossed[0]) }
        }
        var members: [Int: [Int]] = [:]
        for i in spines.indices { members[root(i), default: []].append(i) }
        var out: [Spine] = []
        for i in spines.indices {
            let pieces = members[root(i)] ?? [i]
            // Spans chained through a shared piece can gather two titles: such pieces stay apart.
            if Set(pieces.compactMap { spines[$0].title }).count > 1 {
                out.append(spines[i])
            } else if pieces.first == i, let joined = joinedSpine(pieces.map { spines[$0] }) {
                out.append(joined)
            }
        }
        return ResultNumbering.renumbered(out, rows: rows)
    }

    /// Indices of the upright spines of `spines` that `span`'s lettering crosses at its height.
    func crossedSpines(_ spines: [Spine], span: LetteringSpan) -> [Int] {
        let width = span.x1 - span.x0
        guard width > 0 else { return [] }
        return spines.indices.filter { i in
            let b = spines[i].box
            guard spines[i].pose == .upright, b.y <= span.y, span.y <= b.y + b.height else { return false }
            let overlap = min(span.x1, b.x + b.width) - max(span.x0, b.x)
            return overlap >= Self.crossedShare * width
        }
    }

    /// One spine from `pieces` (left to right in the result's order): the titled piece's reading (else the widest
    /// piece's), outlined from the left edge of the leftmost piece to the right edge of the rightmost (so a
    /// sheared or tilted outline keeps its slant), its box that outline's bounds.
    func joinedSpine(_ pieces: [Spine]) -> Spine? {
        guard var base = pieces.first(where: { $0.title != nil }) ?? pieces.max(by: { $0.box.width < $1.box.width }),
            let left = pieces.min(by: { $0.box.x < $1.box.x }),
            let right = pieces.max(by: { $0.box.x + $0.box.width < $1.box.x + $1.box.width })
        else { return nil }
        guard pieces.count > 1 else { return base }
        let outline = NormalizedQuad(
            topLeft: left.polygon.topLeft, topRight: right.polygon.topRight, bottomRight: right.polygon.bottomRight,
            bottomLeft: left.polygon.bottomLeft)
        let corners = [outline.topLeft, outline.topRight, outline.bottomRight, outline.bottomLeft]
        let x0 = corners.map(\.x).min() ?? base.box.x, x1 = corners.map(\.x).max() ?? base.box.x + base.box.width
        let y0 = corners.map(\.y).min() ?? base.box.y, y1 = corners.map(\.y).max() ?? base.box.y + base.box.height
        base.polygon = outline
        base.box = NormalizedBox(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        return base
    }
}
