import ScanProtocol

/// Keeps a result's numbering whole after spines were dropped or joined: each spine's index its place, each
/// row's count the spines it holds.
enum ResultNumbering {
    static func renumbered(_ spines: [Spine], rows: [ShelfRow]) -> (spines: [Spine], rows: [ShelfRow]) {
        var out = spines
        for i in out.indices { out[i].index = i }
        let counted = rows.map { row in
            var r = row
            r.spineCount = out.filter { $0.row == row.index }.count
            return r
        }
        return (out, counted)
    }
}
