import Foundation
import RunModel
import ScanAnalytics
import Testing

/// `bookscan stats --html`: the page shows the summary's numbers, escapes the log's text, refers to nothing outside itself.
@Suite("Stats HTML report")
struct StatsHTMLReportTests {
    static let sampleLog = AnalyticsTests.analytics.appendingPathComponent("sample-log.jsonl").path
    static let made = Date(timeIntervalSince1970: 1_795_000_000)

    static func page(_ records: [AnalyticsRecord], by grouping: StatsGrouping = .strategy, verdicts: [String: String] = [:]) -> String {
        let summary = StatsSummary(records: records, skippedLines: 2, groupedBy: grouping, verdicts: verdicts)
        return StatsHTMLReport(
            summary: summary, timeline: NetworkTimeline(records: records, verdicts: verdicts), source: "/logs/analytics.jsonl", generatedAt: made
        ).render()
    }

    /// The markup from `start` to the first `end` after it (a table row, a section).
    static func slice(_ page: String, from start: String, to end: String = "</tr>") throws -> String {
        let from = try #require(page.range(of: start), "no \(start) in the page")
        let to = try #require(page.range(of: end, range: from.upperBound..<page.endIndex), "no \(end) after \(start)")
        return String(page[from.lowerBound..<to.upperBound])
    }

    static func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }
    static func seconds(_ value: Double?) -> String { value.map { String(format: "%.2f s", $0) } ?? "–" }

    /// Every tag of the page (escaped text has no `<`, so this is the markup only).
    static func tags(_ page: String) throws -> [String] {
        try page.matches(of: Regex("<[A-Za-z!/][^>]*>")).map { String(page[$0.range]) }
    }

    @Test("the page from the sample log shows the summary's rates, targets, percentiles and reasons")
    func sampleNumbers() throws {
        let (records, skipped) = AnalyticsLog(path: Self.sampleLog).read()
        #expect(skipped == 2)
        let summary = StatsSummary(records: records, skippedLines: skipped, groupedBy: .strategy)
        let page = Self.page(records)
        #expect(page.contains("9 runs in <code>/logs/analytics.jsonl</code> (2 unreadable lines skipped)"))
        let rates = [
            ("completion", summary.completion), ("websocket", summary.webSocketSuccess), ("sse", summary.eventStreamSuccess),
            ("fallback", summary.pollingFallback),
        ]
        for (id, rate) in rates {
            let row = try Self.slice(page, from: "<tr id=\"rate-\(id)\">")
            #expect(row.contains(rate.value.map(Self.percent) ?? "–"), "\(row)")
            #expect(row.contains(">\(rate.numerator)/\(rate.denominator)<"), "\(row)")
            #expect(row.contains(Self.percent(rate.target)), "\(row)")
            #expect(row.contains(rate.met.map { $0 ? ">met<" : ">NOT met<" } ?? ">no data<"), "\(row)")
        }
        // The hand-computed numbers of Analytics/README.md, as the page prints them.
        #expect(try Self.slice(page, from: "<tr id=\"rate-completion\">").contains("85.7%"))
        #expect(try Self.slice(page, from: "<tr id=\"rate-websocket\">").contains("50.0%</td><td class=\"num\">3/6<"))
        #expect(try Self.slice(page, from: "<tr id=\"rate-fallback\">").contains("&lt; 5.0%"))
        #expect(page.contains("1 timed out, 0 interrupted"))
        for (strategy, timing) in summary.firstEvent {
            let row = try Self.slice(page, from: "<tr id=\"timing-\(strategy)\">")
            #expect(row.contains(">\(Self.seconds(timing.p50))<") && row.contains(">\(Self.seconds(timing.p95))<"), "\(row)")
            #expect(row.contains(">\(timing.count)<"), "\(row)")
        }
        let websocket = try Self.slice(page, from: "<tr id=\"timing-websocket\">")
        #expect(websocket.contains(">0.20 s<") && websocket.contains(">0.40 s<"))
        #expect(try Self.slice(page, from: "<tr id=\"timing-polling_fallback\">").contains(">2.60 s<"))
        // The first-event chart draws both percentiles of each strategy.
        #expect(page.contains(">p50 0.20 s</text>") && page.contains(">p95 2.60 s</text>"))
        let reasons = try Self.slice(page, from: "<section id=\"fallback-reasons\">", to: "</section>")
        for (reason, count) in summary.fallbackReasons {
            #expect(reasons.contains("<tr><td>\(reason)</td><td class=\"num\">\(count)</td></tr>"), "\(reason)")
        }
        #expect(reasons.contains("refused 503 (before first event)"))
        // Per strategy (the default grouping): each group's WebSocket success, as in the summary.
        let groups = try Self.slice(page, from: "<section id=\"groups\">", to: "</section>")
        for group in summary.groups {
            #expect(groups.contains("<td class=\"mono\">\(group.key)</td><td class=\"num\">\(group.runs)</td>"), "\(group.key)")
        }
    }

    @Test("per network over days: each network's day rates from the same summary, and the adaptive start of each day")
    func networksOverDays() throws {
        let (records, _) = AnalyticsLog(path: Self.sampleLog).read()
        var adaptive = try AnalyticsTests().record(network: "3333333333333333", strategy: .sse)
        adaptive.adaptiveEventStream = true
        let verdicts = ["3333333333333333": "WebSocket skipped until 2026-12-01T00:00:00Z, SSE ok → sse first"]
        let timeline = NetworkTimeline(records: records + [adaptive], verdicts: verdicts)
        #expect(timeline.days.first == "2026-11-18")
        let first = try #require(timeline.networks.first { $0.network == "1111111111111111" })
        #expect(first.days == StatsSummary(records: records.filter { $0.network == first.network }, skippedLines: 0, groupedBy: .day).groups)
        let third = try #require(timeline.networks.first { $0.network == "3333333333333333" })
        #expect(third.adaptive.values.first?.verdict == "sse first")
        #expect(third.currentVerdict == verdicts["3333333333333333"])
        let page = Self.page(records + [adaptive], by: .network, verdicts: verdicts)
        let section = try Self.slice(page, from: "<section id=\"networks\">", to: "</section>")
        #expect(section.contains("WebSocket skipped until 2026-12-01T00:00:00Z, SSE ok → sse first"))
        #expect(section.contains(">sse first</td>"))
        for day in first.days {
            #expect(section.contains("<tr><td>\(day.key)</td><td class=\"num\">\(day.runs)</td>"), "\(day.key)")
        }
        #expect(section.contains("<svg class=\"chart\""))
    }

    @Test("a long history: the heat map keeps the latest days and the busiest networks, and says so; the tables keep all")
    func longHistory() throws {
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        var records: [AnalyticsRecord] = []
        for day in 0..<40 {
            for network in 0..<(day < 5 ? 45 : 1) {
                var record = try AnalyticsTests().record(network: String(format: "%016x", network), strategy: .websocket)
                record.timestamp = start.addingTimeInterval(Double(day) * 86_400)
                records.append(record)
            }
        }
        let page = Self.page(records, by: .day)
        #expect(page.contains("The map shows the last 31 of 40 days"))
        #expect(page.contains("The map shows the 40 networks with most runs of 45"))
        let networks = try Self.slice(page, from: "<section id=\"networks\">", to: "</section>")
        #expect(networks.components(separatedBy: "<details>").count - 1 == 45)
    }

    @Test("every text from the log is escaped: hostile network and server names, verdicts and paths stay text")
    func escaping() throws {
        let hostile = "<script>alert('x')</script>\"><img src=x onerror=alert(1)>&amp;"
        var records = [try AnalyticsTests().record(network: hostile, strategy: .websocket)]
        records.append(try AnalyticsTests().record(network: hostile, strategy: .pollingFallback, reason: .refused, status: 403))
        records[1].server = hostile
        for grouping in StatsGrouping.allCases {
            let summary = StatsSummary(records: records, skippedLines: 0, groupedBy: grouping, verdicts: [hostile: hostile])
            let page = StatsHTMLReport(
                summary: summary, timeline: NetworkTimeline(records: records, verdicts: [hostile: hostile]), source: hostile
            ).render()
            #expect(!page.contains("<script") && !page.contains("<img"), "\(grouping)")
            #expect(page.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&amp;amp;"))
            for tag in try Self.tags(page) {
                #expect(!tag.lowercased().contains("onerror") && !tag.contains("src=x"), "\(tag)")
            }
        }
    }

    @Test("no external reference: no script, no src or href, no url(), no @import, no http(s) address")
    func selfContained() throws {
        let (records, _) = AnalyticsLog(path: Self.sampleLog).read()
        for page in [Self.page(records), Self.page(records, by: .network), Self.page([])] {
            let lower = page.lowercased()
            for forbidden in ["<script", "<link", "<img", "<iframe", "<object", "<embed", "<image", "<use", "url(", "@import", "://"] {
                #expect(!lower.contains(forbidden), "\(forbidden)")
            }
            for tag in try Self.tags(page) {
                let attributes = tag.lowercased()
                for attribute in [" src=", " href=", " xlink:href=", " srcset=", " action=", " data=", " poster="] {
                    #expect(!attributes.contains(attribute), "\(tag)")
                }
                #expect(try attributes.firstMatch(of: Regex(#"\son[a-z]+="#)) == nil, "\(tag)")  // no event handlers
            }
            #expect(page.contains("Content-Security-Policy"))
        }
    }

    @Test("an empty log gives a page that says there is no data yet")
    func emptyLog() {
        let page = Self.page([])
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(page.contains("<h2>No data yet</h2>"))
        #expect(!page.contains("<svg"))
        #expect(page.hasSuffix("</html>\n"))
    }

    @Test("hostile numbers (huge, negative) draw bounded bars, never a crash")
    func hostileNumbers() throws {
        var huge = try AnalyticsTests().record(strategy: .websocket)
        huge.firstEventSeconds = 1e300
        huge.totalSeconds = -5
        var tiny = try AnalyticsTests().record(strategy: .polling)
        tiny.firstEventSeconds = -1e300
        let page = Self.page([huge, tiny])
        #expect(page.contains("<section id=\"first-event\">"))
        for word in ["nan", "-nan", "inf", "-inf"] { #expect(!page.contains("\"\(word)\""), "\(word)") }
    }

    @Test("the report file is written atomically; a bad path names the file and the reason")
    func reportFile() throws {
        let directory = try AnalyticsTests().temporaryDirectory()
        let path = directory + "/report.html"
        try ReportFile.write("first", to: path)
        try ReportFile.write("second", to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "second")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["report.html"])  // no temporary file left
        let missing = directory + "/no/such/dir/report.html"
        let error = try #require(throws: ReportFile.WriteError.self) { try ReportFile.write("x", to: missing) }
        #expect(error.description == "\(missing): No such file or directory")
        #expect(throws: ReportFile.WriteError.self) { try ReportFile.write("x", to: directory) }
        #expect(throws: ReportFile.WriteError.self) { try ReportFile.write("x", to: "") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["report.html"])
    }
}
