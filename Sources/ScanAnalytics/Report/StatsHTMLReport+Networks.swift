import Foundation

extension StatsHTMLReport {
    /// Per-network success over days: a heat map of the WebSocket success of each day (the adaptive
    /// start of the day as a badge), then each network's day table and what adaptive memory holds now.
    func networkSection() -> String {
        let days = Array(timeline.days.suffix(Self.maxDays))
        let shown = Array(timeline.networks.prefix(Self.maxNetworks))
        let map = SVGHeatMap(
            title: "WebSocket success per network and day",
            columns: days,
            rows: shown.map { network in
                let byDay = Dictionary(network.days.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
                return SVGHeatMap.Row(label: network.network, cells: days.map { day in byDay[day].map { cell($0, network: network) } })
            })
        var notes: [String] = []
        if timeline.days.count > days.count {
            notes.append("The map shows the last \(days.count) of \(timeline.days.count) days (choose others with <code>--since</code>).")
        }
        if timeline.networks.count > shown.count {
            notes.append("The map shows the \(shown.count) networks with most runs of \(timeline.networks.count); the tables list all.")
        }
        var overview = ""
        for network in timeline.networks {
            let adaptive = network.adaptive.values
            let eventStreamFirst = adaptive.reduce(0) { $0 + $1.eventStreamFirst }
            let polling = adaptive.reduce(0) { $0 + $1.polling }
            let probes = adaptive.reduce(0) { $0 + $1.probesSucceeded }
            overview += "<tr><td class=\"mono\">\(HTMLText.escape(network.network))</td><td class=\"num\">\(network.runs)</td>"
            let first = network.days.first?.key ?? "–", last = network.days.last?.key ?? "–"
            overview += "<td>\(HTMLText.escape(first == last ? first : "\(first) … \(last)"))</td>"
            overview += "<td class=\"num\">\(eventStreamFirst)</td><td class=\"num\">\(polling)</td><td class=\"num\">\(probes)</td>"
            overview += "<td>\(HTMLText.escape(network.currentVerdict ?? "nothing remembered"))</td></tr>"
        }
        let details = timeline.networks.map(dayTable).joined(separator: "\n")
        return """
            <section id="networks"><h2>Networks over time</h2>
            <p>Each cell is one network on one UTC day: its colour is that day's WebSocket success (red 0% … green 100%; \
            <span class="swatch sse-only"></span> only the event stream was tried; <span class="swatch no-data"></span> no \
            streaming try), the text its runs. A dot marks a day adaptive memory started runs past the WebSocket \
            (S: at the event stream, P: polling). Hover a cell for its numbers.</p>
            \(map.render())
            \(notes.map { "<p class=\"note\">\($0)</p>" }.joined())
            <table><thead><tr><th>network</th><th>runs</th><th>days</th><th>started at SSE</th><th>polled (adaptive)</th>\
            <th>probes ok</th><th>adaptive memory now</th></tr></thead>
            <tbody>\(overview)</tbody></table>
            \(details)
            </section>

            """
    }

    private func cell(_ day: StatsSummary.Group, network: NetworkTimeline.Network) -> SVGHeatMap.Cell {
        let adaptive = network.adaptive[day.key]
        var tooltip = "\(network.network) on \(day.key): \(HTMLText.count(day.runs, "run")); WebSocket success "
        tooltip += "\(Self.rateText(day.webSocketSuccess)); SSE success \(Self.rateText(day.eventStreamSuccess)); "
        tooltip += "polling fallback \(Self.rateText(day.pollingFallback))"
        if let verdict = adaptive?.verdict { tooltip += "; adaptive memory: \(verdict)" }
        let badge: String? =
            switch adaptive?.verdict {
            case StrategyMemory.Preference.polling.rawValue?: "P"
            case StrategyMemory.Preference.eventStreamFirst.rawValue?: "S"
            default: nil
            }
        let rate = day.webSocketSuccess
        if rate.value != nil {
            return .init(fraction: rate.value, text: "\(rate.numerator)/\(rate.denominator)", badge: badge, tooltip: tooltip)
        }
        if day.eventStreamSuccess.value != nil {
            let stream = day.eventStreamSuccess
            return .init(style: "sse-only", text: "\(stream.numerator)/\(stream.denominator)", badge: badge, tooltip: tooltip)
        }
        return .init(style: "no-data", text: "\(day.runs)", badge: badge, tooltip: tooltip)
    }

    private func dayTable(_ network: NetworkTimeline.Network) -> String {
        var rows = ""
        for day in network.days {
            rows += "<tr><td>\(HTMLText.escape(day.key))</td><td class=\"num\">\(day.runs)</td>"
            for rate in [day.completion, day.webSocketSuccess, day.eventStreamSuccess, day.pollingFallback] { rows += Self.rateCell(rate) }
            let verdict = network.adaptive[day.key]?.verdict ?? StrategyMemory.Preference.ladder.rawValue
            rows += "<td>\(HTMLText.escape(verdict))</td></tr>"
        }
        let name = HTMLText.escape(network.network)
        return """
            <details><summary>network <span class="mono">\(name)</span>: \(HTMLText.count(network.runs, "run")), \
            \(HTMLText.count(network.days.count, "day"))</summary>
            <table><thead><tr><th>day (UTC)</th><th>runs</th><th>completion</th><th>WebSocket success</th><th>SSE success</th>\
            <th>polling fallback</th><th>ladder started at</th></tr></thead>
            <tbody>\(rows)</tbody></table></details>
            """
    }
}
