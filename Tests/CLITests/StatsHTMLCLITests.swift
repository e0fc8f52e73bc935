import BookscanTestSupport
import Foundation
import Testing

/// `bookscan stats --html` as a user runs it, and the page in a real headless browser.
@Suite("stats --html")
struct StatsHTMLCLITests {
    static let repository = CLITests.samples.deletingLastPathComponent()
    static let sampleLog = repository.appendingPathComponent("Analytics/sample-log.jsonl").path

    func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bookscan-html-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func json(_ run: CLITests.Run) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }

    @Test("stats --html writes the page of the same summary stats prints, honouring --log, --since and --by")
    func writesThePage() async throws {
        let directory = try temporaryDirectory()
        let page = directory + "/report.html"
        let run = try await CLITests().bookscan(["stats", "--log", Self.sampleLog, "--html", page])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Wrote the HTML report of 9 runs"), "\(run.stdout)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.contains("9 runs in <code>\(Self.sampleLog)</code>"))
        #expect(html.contains("<tr id=\"rate-completion\"><td>completion</td><td class=\"num\">85.7%</td><td class=\"num\">6/7</td>"))
        #expect(html.contains("<h2>Rates by strategy</h2>"))

        // --since and --by: the page counts what `stats --json` counts with the same filters.
        let filtered = directory + "/since.html"
        let since = try await CLITests().bookscan([
            "stats", "--log", Self.sampleLog, "--since", "2026-11-19", "--by", "network", "--html", filtered,
        ])
        #expect(since.status == 0, "\(since.stderr)")
        let numbers = try json(try await CLITests().bookscan(["stats", "--log", Self.sampleLog, "--since", "2026-11-19", "--json"]))
        let runs = try #require(numbers["runs"] as? Int)
        #expect(runs < 9)
        let filteredHTML = try String(contentsOfFile: filtered, encoding: .utf8)
        #expect(filteredHTML.contains("\(runs) runs in <code>"))
        #expect(filteredHTML.contains("<h2>Rates by network</h2>") && filteredHTML.contains(" · since 2026-11-19"))
        #expect(!filteredHTML.contains("2026-11-18"))

        // The log from the environment, as `stats` reads it; --json still prints the numbers.
        let fromEnvironment = directory + "/env.html"
        let env = try await CLITests().bookscan(
            ["stats", "--html", fromEnvironment, "--json"], environment: ["BOOKSCAN_ANALYTICS_LOG": Self.sampleLog])
        #expect(env.status == 0, "\(env.stderr)")
        #expect(try json(env)["runs"] as? Int == 9)
        #expect(FileManager.default.fileExists(atPath: fromEnvironment))
    }

    @Test("stats --html: a path that cannot be written is one line naming it, exit 21; an empty log is a page saying so")
    func badPathAndEmptyLog() async throws {
        let directory = try temporaryDirectory()
        let bad = directory + "/no/such/dir/report.html"
        let run = try await CLITests().bookscan(["stats", "--log", Self.sampleLog, "--html", bad])
        #expect(run.status == 21, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.contains(bad) == true && run.stderr.contains("No such file or directory"), "\(run.stderr)")
        let onDirectory = try await CLITests().bookscan(["stats", "--log", Self.sampleLog, "--html", directory])
        #expect(onDirectory.status == 21, "\(onDirectory.stderr)")

        let page = directory + "/empty.html"
        let empty = try await CLITests().bookscan(["stats", "--log", directory + "/none.jsonl", "--html", page])
        #expect(empty.status == 0, "\(empty.stderr)")
        #expect(empty.stdout.contains("No runs recorded"))
        #expect(try String(contentsOfFile: page, encoding: .utf8).contains("<h2>No data yet</h2>"))
    }

    /// scripts/html-report-check: the page in a real headless Chromium, offline. Without chromium the test
    /// is skipped; under CI=true a missing chromium fails (scripts/bootstrap installs it).
    @Test(
        "a real headless Chromium renders the page offline: a screenshot that is not blank, a DOM without scripts",
        .enabled(if: InstalledProgram.runnable("chromium", "chromium-browser"), "chromium is not installed (scripts/bootstrap installs it)"))
    func browserCheck() async throws {
        let chromium = try #require(InstalledProgram.path("chromium", "chromium-browser"), "CI=true: chromium is not installed (scripts/bootstrap installs it)")
        let script = Self.repository.appendingPathComponent("scripts/html-report-check")
        let child = try ChildProcess(executable: script, [], environment: ["BOOKSCAN_BIN": CLITests.binary.path, "CHROMIUM": chromium])
        let status = await child.exit()
        #expect(status == 0, "\(child.stdout)\(child.stderr)")
        #expect(child.stdout.contains("html-report-check: ok"), "\(child.stdout)")
    }
}
