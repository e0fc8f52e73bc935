import Foundation

/// An inline SVG horizontal bar chart for the HTML report: rows of thin bars, an optional target
/// marker per row, grid lines; styled by CSS classes of the page, no script, no external reference.
struct SVGBarChart {
    /// One thin bar of a row, as a fraction (0…1) of the chart's scale.
    struct Segment {
        var fraction: Double
        /// The CSS class that colours it (`met`, `not-met`, `p50`…).
        var style: String
        /// Printed right of the bar.
        var text: String
    }

    /// One labelled row: one or more thin bars stacked, and where its target lies.
    struct Row {
        var label: String
        var segments: [Segment]
        /// The target as a fraction of the scale, drawn as a dashed line.
        var marker: Double? = nil
        /// The full text shown on hover (the label may be shortened on the chart).
        var tooltip: String? = nil
    }

    /// A grid line and its label at the bottom.
    struct Tick {
        var fraction: Double
        var label: String
    }

    var title: String
    var rows: [Row]
    var ticks: [Tick] = []
    /// Colour keys above the rows: (CSS class, what it means).
    var legend: [(style: String, label: String)] = []
    var width = 760.0
    var labelWidth = 250.0
    var textWidth = 170.0

    private static let barHeight = 14.0
    private static let barGap = 4.0
    private static let rowGap = 12.0
    static let maxLabel = 38

    /// The `<svg>` element.
    func render() -> String {
        let top = legend.isEmpty ? 8.0 : 30.0
        let plotWidth = max(100, width - labelWidth - textWidth)
        var y = top
        var body = ""
        for row in rows {
            let rowHeight = Double(max(1, row.segments.count)) * (Self.barHeight + Self.barGap) - Self.barGap
            let label = Self.shorten(row.label)
            body += "<g class=\"row\"><title>\(HTMLText.escape(row.tooltip ?? row.label))</title>"
            body += "<text class=\"label\" x=\"\(n(labelWidth - 8))\" y=\"\(n(y + rowHeight / 2 + 4))\" text-anchor=\"end\">"
            body += "\(HTMLText.escape(label))</text>"
            var barY = y
            for segment in row.segments {
                let fraction = Self.clamp(segment.fraction)
                let barWidth = max(fraction > 0 ? 2 : 0, fraction * plotWidth)
                body += "<rect class=\"track\" x=\"\(n(labelWidth))\" y=\"\(n(barY))\" width=\"\(n(plotWidth))\" "
                body += "height=\"\(n(Self.barHeight))\"/>"
                body += "<rect class=\"bar \(segment.style)\" x=\"\(n(labelWidth))\" y=\"\(n(barY))\" width=\"\(n(barWidth))\" "
                body += "height=\"\(n(Self.barHeight))\"/>"
                body += "<text class=\"value\" x=\"\(n(labelWidth + plotWidth + 6))\" y=\"\(n(barY + Self.barHeight - 3))\">"
                body += "\(HTMLText.escape(segment.text))</text>"
                barY += Self.barHeight + Self.barGap
            }
            if let marker = row.marker {
                let x = labelWidth + Self.clamp(marker) * plotWidth
                body += "<line class=\"target\" x1=\"\(n(x))\" y1=\"\(n(y - 3))\" x2=\"\(n(x))\" y2=\"\(n(y + rowHeight + 3))\"/>"
            }
            body += "</g>"
            y += rowHeight + Self.rowGap
        }
        let plotBottom = y - Self.rowGap + 4
        var grid = ""
        for tick in ticks {
            let x = labelWidth + Self.clamp(tick.fraction) * plotWidth
            grid += "<line class=\"grid\" x1=\"\(n(x))\" y1=\"\(n(top - 4))\" x2=\"\(n(x))\" y2=\"\(n(plotBottom))\"/>"
            grid += "<text class=\"tick\" x=\"\(n(x))\" y=\"\(n(plotBottom + 14))\" text-anchor=\"middle\">\(HTMLText.escape(tick.label))</text>"
        }
        var keys = ""
        var keyX = labelWidth
        for key in legend {
            keys += "<rect class=\"bar \(key.style)\" x=\"\(n(keyX))\" y=\"6\" width=\"12\" height=\"12\"/>"
            keys += "<text class=\"tick\" x=\"\(n(keyX + 16))\" y=\"16\">\(HTMLText.escape(key.label))</text>"
            keyX += 24 + Double(key.label.count) * 7
        }
        let height = plotBottom + (ticks.isEmpty ? 6 : 22)
        return "<svg class=\"chart\" viewBox=\"0 0 \(n(width)) \(n(height))\" width=\"\(n(width))\" height=\"\(n(height))\" role=\"img\" "
            + "aria-label=\"\(HTMLText.escape(title))\"><title>\(HTMLText.escape(title))</title>\(keys)\(grid)\(body)</svg>"
    }

    /// Evenly spaced grid lines from 0 to `scale` (`format` prints each value).
    static func ticks(scale: Double, count: Int = 4, format: (Double) -> String) -> [Tick] {
        (0...count).map { index in
            let fraction = Double(index) / Double(count)
            return Tick(fraction: fraction, label: format(fraction * scale))
        }
    }

    /// A round upper bound for a scale that holds `value` (1, 2 or 5 × a power of ten).
    static func niceScale(_ value: Double) -> Double {
        guard value.isFinite, value > 0 else { return 1 }
        let power = pow(10, (log10(value)).rounded(.down))
        for step in [1.0, 2, 5, 10] where step * power >= value { return step * power }
        return 10 * power
    }

    static func clamp(_ fraction: Double) -> Double { fraction.isFinite ? min(1, max(0, fraction)) : 0 }

    /// Labels longer than the label column are cut with an ellipsis (the full text is in the tooltip).
    static func shorten(_ label: String, to limit: Int = maxLabel) -> String {
        label.count > limit ? String(label.prefix(max(1, limit - 1))) + "…" : label
    }

    private func n(_ value: Double) -> String { HTMLText.number(value) }
}
