import Foundation

/// An inline SVG heat map for the HTML report: one row per label, one column per key (a day), each
/// cell coloured by a fraction with a short text, a corner badge and a tooltip.
struct SVGHeatMap {
    /// One cell; a missing cell (nil) is drawn empty.
    struct Cell {
        /// 0 (red) … 1 (green); nil draws the cell in the class `style` alone.
        var fraction: Double?
        /// The CSS class when there is no fraction (`no-data`, `sse-only`).
        var style = "no-data"
        /// Printed in the cell when it is wide enough.
        var text: String
        /// A short mark in the top corner (the adaptive start of the day), if any.
        var badge: String? = nil
        var tooltip: String
    }

    /// One labelled row of cells, one per column.
    struct Row {
        var label: String
        var cells: [Cell?]
    }

    var title: String
    var columns: [String]
    var rows: [Row]
    var width = 760.0
    var labelWidth = 150.0

    private static let rowHeight = 30.0
    private static let header = 34.0
    /// Row labels (network ids, 16 hex digits) longer than this are cut; the cells' tooltips name them in full.
    private static let maxLabel = 19

    /// The `<svg>` element.
    func render() -> String {
        let columnCount = max(1, columns.count)
        let cellWidth = max(14, min(72, (width - labelWidth) / Double(columnCount)))
        let labelEvery = max(1, Int((44 / cellWidth).rounded(.up)))
        var body = ""
        for (index, column) in columns.enumerated() where index % labelEvery == 0 || index == columns.count - 1 {
            let x = labelWidth + (Double(index) + 0.5) * cellWidth
            body += "<text class=\"tick\" x=\"\(n(x))\" y=\"\(n(Self.header - 10))\" text-anchor=\"middle\">"
            body += "\(HTMLText.escape(Self.shortDay(column)))</text>"
        }
        for (rowIndex, row) in rows.enumerated() {
            let y = Self.header + Double(rowIndex) * Self.rowHeight
            body += "<text class=\"label mono\" x=\"\(n(labelWidth - 8))\" y=\"\(n(y + Self.rowHeight / 2 + 4))\" text-anchor=\"end\">"
            body += "\(HTMLText.escape(SVGBarChart.shorten(row.label, to: Self.maxLabel)))</text>"
            for (index, cell) in row.cells.prefix(columnCount).enumerated() {
                let x = labelWidth + Double(index) * cellWidth
                let box = "x=\"\(n(x + 1))\" y=\"\(n(y + 1))\" width=\"\(n(cellWidth - 2))\" height=\"\(n(Self.rowHeight - 2))\""
                guard let cell else {
                    body += "<rect class=\"cell empty\" \(box)/>"
                    continue
                }
                body += "<g><title>\(HTMLText.escape(cell.tooltip))</title>"
                if let fraction = cell.fraction {
                    let hue = Int((SVGBarChart.clamp(fraction) * 120).rounded())
                    body += "<rect class=\"cell\" \(box) fill=\"hsl(\(hue),55%,46%)\"/>"
                } else {
                    body += "<rect class=\"cell \(cell.style)\" \(box)/>"
                }
                if cellWidth >= 40 {
                    body += "<text class=\"cell-text\" x=\"\(n(x + cellWidth / 2))\" y=\"\(n(y + Self.rowHeight / 2 + 5))\" "
                    body += "text-anchor=\"middle\">\(HTMLText.escape(cell.text))</text>"
                }
                if let badge = cell.badge {
                    body += "<circle class=\"badge\" cx=\"\(n(x + cellWidth - 6))\" cy=\"\(n(y + 7))\" r=\"4.5\"/>"
                    if cellWidth >= 40 {
                        body += "<text class=\"badge-text\" x=\"\(n(x + cellWidth - 12))\" y=\"\(n(y + 10))\" text-anchor=\"end\">"
                        body += "\(HTMLText.escape(badge))</text>"
                    }
                }
                body += "</g>"
            }
        }
        let height = Self.header + Double(rows.count) * Self.rowHeight + 6
        let svgWidth = labelWidth + Double(columnCount) * cellWidth + 4
        return "<svg class=\"chart\" viewBox=\"0 0 \(n(svgWidth)) \(n(height))\" width=\"\(n(svgWidth))\" height=\"\(n(height))\" role=\"img\" "
            + "aria-label=\"\(HTMLText.escape(title))\"><title>\(HTMLText.escape(title))</title>\(body)</svg>"
    }

    /// `2026-11-18` → `11-18` (the year is in the table below the chart).
    static func shortDay(_ day: String) -> String { day.count == 10 ? String(day.suffix(5)) : day }

    private func n(_ value: Double) -> String { HTMLText.number(value) }
}
