package import Foundation

/// `bookscan stats --html`: one self-contained page (inline CSS and SVG, no script, no external
/// reference) of the numbers a `StatsSummary` holds, and each network's days; every text from the log is escaped.
package struct StatsHTMLReport: Sendable {
    /// The summary `bookscan stats` computed (the page computes no rate of its own).
    package var summary: StatsSummary
    package var timeline: NetworkTimeline
    /// Where the records came from (the log's path), shown in the header.
    package var source: String
    /// The `--since` cutoff, if any.
    package var since: Date?
    package var generatedAt: Date

    /// The heat map shows at most this many of the latest days and this many networks (the tables show all).
    package static let maxDays = 31
    package static let maxNetworks = 40

    package init(summary: StatsSummary, timeline: NetworkTimeline, source: String, since: Date? = nil, generatedAt: Date = Date()) {
        self.summary = summary
        self.timeline = timeline
        self.source = source
        self.since = since
        self.generatedAt = generatedAt
    }

    /// The whole page.
    package func render() -> String {
        var body = header()
        if summary.runs == 0 {
            body += """
                <section id="no-data"><h2>No data yet</h2><p class="empty">No runs recorded\(since == nil ? "" : " in that period") \
                in this log yet. Scan something with <code>bookscan scan PHOTO.jpg</code>, then make this page again.</p></section>
                """
        } else {
            body += ratesSection() + groupsSection() + timingSection() + fallbackSection() + networkSection()
        }
        body += "<footer>Formulas and fields: Analytics/README.md in the bookscan sources. This page has no script and loads nothing.</footer>"
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>bookscan stats</title>
            <style>\(Self.style)</style>
            </head>
            <body>
            \(body)
            </body>
            </html>

            """
    }

    private func header() -> String {
        var meta = [HTMLText.count(summary.runs, "run") + " in <code>\(HTMLText.escape(source))</code>"]
        if summary.skippedLines > 0 { meta[0] += " (\(HTMLText.count(summary.skippedLines, "unreadable line")) skipped)" }
        if let since { meta.append("since " + HTMLText.escape(since.formatted(.iso8601))) }
        meta.append("grouped by " + summary.groupedBy.rawValue)
        meta.append("made " + HTMLText.escape(generatedAt.formatted(.iso8601)))
        return "<header><h1>bookscan stats</h1><p class=\"meta\">\(meta.joined(separator: " · "))</p></header>\n"
    }

    // MARK: Rates against their targets

    /// The four rates `bookscan stats` prints, with the comparison their target uses.
    var rates: [(id: String, name: String, rate: StatsSummary.Rate, comparison: String)] {
        [
            ("completion", "completion", summary.completion, "≥"),
            ("websocket", "WebSocket success", summary.webSocketSuccess, "≥"),
            ("sse", "SSE success", summary.eventStreamSuccess, "≥"),
            ("fallback", "polling fallback", summary.pollingFallback, "<"),
        ]
    }

    private func ratesSection() -> String {
        let chart = SVGBarChart(
            title: "Success rates against their targets",
            rows: rates.map { item in
                SVGBarChart.Row(
                    label: item.name, segments: [Self.rateSegment(item.rate)], marker: item.rate.target,
                    tooltip: "\(item.name): \(Self.rateText(item.rate)), target \(item.comparison) \(HTMLText.percent(item.rate.target))")
            },
            ticks: SVGBarChart.ticks(scale: 1, format: { String(format: "%.0f%%", $0 * 100) }),
            legend: [("met", "target met"), ("not-met", "target NOT met"), ("no-data", "no data")])
        var rows = ""
        for item in rates {
            rows += "<tr id=\"rate-\(item.id)\"><td>\(item.name)</td><td class=\"num\">\(item.rate.value.map(HTMLText.percent) ?? "–")</td>"
            rows += "<td class=\"num\">\(item.rate.numerator)/\(item.rate.denominator)</td>"
            rows += "<td>\(HTMLText.escape(item.comparison)) \(HTMLText.percent(item.rate.target))</td>\(Self.verdictCell(item.rate))</tr>"
        }
        var notFinished = ""
        if summary.timedOut + summary.interrupted > 0 {
            notFinished = "<p id=\"not-finished\">Not finished: \(summary.timedOut) timed out, \(summary.interrupted) interrupted "
                + "(left out of the rates).</p>"
        }
        return """
            <section id="rates"><h2>Success rates against their targets</h2>
            \(chart.render())
            <table><thead><tr><th>rate</th><th>value</th><th>runs</th><th>target</th><th>verdict</th></tr></thead>
            <tbody>\(rows)</tbody></table>\(notFinished)</section>

            """
    }

    private func groupsSection() -> String {
        let grouping = summary.groupedBy.rawValue
        let chart = SVGBarChart(
            title: "WebSocket success by \(grouping)",
            rows: summary.groups.map { group in
                SVGBarChart.Row(
                    label: group.key, segments: [Self.rateSegment(group.webSocketSuccess)], marker: group.webSocketSuccess.target,
                    tooltip: "\(group.key): \(HTMLText.count(group.runs, "run")), WebSocket success \(Self.rateText(group.webSocketSuccess))")
            },
            ticks: SVGBarChart.ticks(scale: 1, format: { String(format: "%.0f%%", $0 * 100) }))
        let showVerdict = summary.groups.contains { $0.verdict != nil }
        var rows = ""
        for group in summary.groups {
            rows += "<tr><td class=\"mono\">\(HTMLText.escape(group.key))</td><td class=\"num\">\(group.runs)</td>"
            for rate in [group.completion, group.webSocketSuccess, group.eventStreamSuccess, group.pollingFallback] {
                rows += Self.rateCell(rate)
            }
            if showVerdict { rows += "<td>\(HTMLText.escape(group.verdict ?? "–"))</td>" }
            rows += "</tr>"
        }
        return """
            <section id="groups"><h2>Rates by \(grouping)</h2>
            \(chart.render())
            <table><thead><tr><th>\(grouping)</th><th>runs</th><th>completion</th><th>WebSocket success</th><th>SSE success</th>\
            <th>polling fallback</th>\(showVerdict ? "<th>adaptive memory now</th>" : "")</tr></thead>
            <tbody>\(rows)</tbody></table></section>

            """
    }

    // MARK: Time to first event

    private func timingSection() -> String {
        let strategies = Set(summary.firstEvent.keys).union(summary.total.keys).sorted()
        let timed = strategies.filter { (summary.firstEvent[$0]?.count ?? 0) > 0 }
        let scale = SVGBarChart.niceScale(timed.compactMap { summary.firstEvent[$0]?.p95 }.max() ?? 1)
        var content = "<p class=\"empty\">No run recorded a first event yet.</p>"
        if !timed.isEmpty {
            content = SVGBarChart(
                title: "Time to first event by strategy (p50, p95)",
                rows: timed.map { strategy in
                    let timing = summary.firstEvent[strategy]
                    return SVGBarChart.Row(
                        label: strategy,
                        segments: [
                            .init(fraction: (timing?.p50 ?? 0) / scale, style: "p50", text: "p50 " + HTMLText.seconds(timing?.p50)),
                            .init(fraction: (timing?.p95 ?? 0) / scale, style: "p95", text: "p95 " + HTMLText.seconds(timing?.p95)),
                        ],
                        tooltip: "\(strategy): \(HTMLText.count(timing?.count ?? 0, "run")) with a first event")
                },
                ticks: SVGBarChart.ticks(scale: scale, format: { String(format: "%g s", $0) }),
                legend: [("p50", "p50 (median)"), ("p95", "p95")]
            ).render()
        }
        var rows = ""
        for strategy in strategies {
            let first = summary.firstEvent[strategy], total = summary.total[strategy]
            rows += "<tr id=\"timing-\(HTMLText.escape(strategy))\"><td>\(HTMLText.escape(strategy))</td>"
            rows += "<td class=\"num\">\(first?.count ?? 0)</td><td class=\"num\">\(HTMLText.seconds(first?.p50))</td>"
            rows += "<td class=\"num\">\(HTMLText.seconds(first?.p95))</td><td class=\"num\">\(total?.count ?? 0)</td>"
            rows += "<td class=\"num\">\(HTMLText.seconds(total?.p50))</td><td class=\"num\">\(HTMLText.seconds(total?.p95))</td></tr>"
        }
        return """
            <section id="first-event"><h2>Time to first event by strategy</h2>
            \(content)
            <table><thead><tr><th>strategy</th><th>runs with a first event</th><th>first event p50</th><th>p95</th>\
            <th>succeeded runs</th><th>total p50</th><th>p95</th></tr></thead>
            <tbody>\(rows)</tbody></table></section>

            """
    }

    // MARK: Fallback reasons

    /// Reasons by count, most frequent first (ties by name), as `bookscan stats` lists them.
    var reasons: [(reason: String, count: Int)] {
        summary.fallbackReasons.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { ($0.key, $0.value) }
    }

    private func fallbackSection() -> String {
        guard let largest = reasons.first?.count, largest > 0 else {
            return "<section id=\"fallback-reasons\"><h2>Fallback reasons</h2>"
                + "<p class=\"empty\">No fallbacks: no run left the WebSocket for the event stream or polling.</p></section>\n"
        }
        let chart = SVGBarChart(
            title: "Fallback reasons",
            rows: reasons.map { item in
                SVGBarChart.Row(
                    label: item.reason,
                    segments: [.init(fraction: Double(item.count) / Double(largest), style: "reason", text: "\(item.count)")],
                    tooltip: "\(item.reason): \(HTMLText.count(item.count, "run"))")
            },
            ticks: SVGBarChart.ticks(scale: Double(largest), count: min(4, largest), format: { String(Int($0.rounded())) }))
        let rows = reasons.map { "<tr><td>\(HTMLText.escape($0.reason))</td><td class=\"num\">\($0.count)</td></tr>" }.joined()
        return """
            <section id="fallback-reasons"><h2>Fallback reasons</h2>
            \(chart.render())
            <table><thead><tr><th>reason (phase)</th><th>runs</th></tr></thead><tbody>\(rows)</tbody></table></section>

            """
    }

    // MARK: Shared pieces

    static func rateText(_ rate: StatsSummary.Rate) -> String {
        rate.value.map { "\(HTMLText.percent($0)) (\(rate.numerator)/\(rate.denominator))" } ?? "no data"
    }

    static func rateStyle(_ rate: StatsSummary.Rate) -> String { rate.met.map { $0 ? "met" : "not-met" } ?? "no-data" }

    static func rateSegment(_ rate: StatsSummary.Rate) -> SVGBarChart.Segment {
        .init(fraction: rate.value ?? 0, style: rateStyle(rate), text: rateText(rate))
    }

    static func rateCell(_ rate: StatsSummary.Rate) -> String {
        "<td class=\"num \(rateStyle(rate))\">\(rate.value == nil ? "–" : rateText(rate))</td>"
    }

    static func verdictCell(_ rate: StatsSummary.Rate) -> String {
        "<td class=\"\(rateStyle(rate))\">\(rate.met.map { $0 ? "met" : "NOT met" } ?? "no data")</td>"
    }
}
