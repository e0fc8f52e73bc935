import BookscanTestSupport
import Foundation
import ImageKit
import Testing

/// The books of a scan as a user gets them: the numbered list on stdout, `--csv`, `--annotate`
/// numbers, and `batch`'s `books.csv`, all agreeing with the JSON result book by book.
@Suite("Book list, CSV and batch books.csv")
struct BookOutputTests {
    let cli = CLITests()

    /// Parses RFC 4180 CSV (quoted fields, doubled quotes, CRLF).
    static func parseCSV(_ text: String) -> [[String]] {
        var rows: [[String]] = [], row: [String] = [], field = "", quoted = false
        var characters = Array(text)[...]
        while let c = characters.popFirst() {
            if quoted {
                if c == "\"" {
                    if characters.first == "\"" { field.append("\""); characters.removeFirst() } else { quoted = false }
                } else { field.append(c) }
            } else if c == "\"" {
                quoted = true
            } else if c == "," {
                row.append(field); field = ""
            } else if c == "\r\n" || c == "\n" {
                row.append(field); rows.append(row); row = []; field = ""
            } else { field.append(c) }
        }
        if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
        return rows
    }

    @Test("scan prints one numbered line per book, --csv writes the same books, --annotate numbers them")
    func scanListAndCSV() async throws {
        let sample = CLITests.samples.appendingPathComponent("shelf_one_row.jpg").path
        try FileManager.default.createDirectory(at: TemporaryFiles.directory, withIntermediateDirectories: true)
        let csv = TemporaryFiles.directory.appendingPathComponent("books-\(UUID().uuidString).csv").path
        let json = TemporaryFiles.directory.appendingPathComponent("result-\(UUID().uuidString).json").path
        let annotated = TemporaryFiles.directory.appendingPathComponent("numbered-\(UUID().uuidString).jpg").path
        let run = try await cli.bookscan(["scan", sample, "--csv", csv, "--output", json, "--annotate", annotated], environment: ["BOOKSCAN_READ_TITLES": "1"])
        #expect(run.status == 0, "\(run.stderr)")

        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        let spines = try #require((report["result"] as? [String: Any])?["spines"] as? [[String: Any]])
        #expect(!spines.isEmpty)

        // stdout: exactly the numbered list, book N = spine index N-1, read titles shown as read.
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == spines.count)
        for (i, spine) in spines.enumerated() {
            let line = lines[i]
            #expect(line.hasPrefix("\(i + 1). "), "\(line)")
            if let title = spine["title"] as? String {
                #expect(line.contains(title), "\(line) vs \(title)")
                if let author = spine["author"] as? String { #expect(line.hasSuffix(" — \(author)")) }
            } else {
                #expect(line.contains("(unread spine, "), "\(line)")
            }
        }
        #expect(spines.contains { $0["title"] != nil }, "the sample's titles are drawn in real fonts: some must be read")

        // CSV: header + one row per book, the same numbers, titles and authors.
        let rows = Self.parseCSV(try String(contentsOfFile: csv, encoding: .utf8))
        #expect(rows.first == ["image", "book", "row", "position", "title", "author", "confidence", "text_confidence", "x", "y", "width", "height"])
        let books = Array(rows.dropFirst())
        #expect(books.count == spines.count)
        for (i, (row, spine)) in zip(books, spines).enumerated() {
            #expect(row.count == 12)
            #expect(row[0] == sample)
            #expect(row[1] == String(i + 1))
            #expect(row[2] == String((spine["row"] as? Int ?? -1) + 1))
            #expect(row[4] == (spine["title"] as? String ?? ""))
            #expect(row[5] == (spine["author"] as? String ?? ""))
            #expect(Int(row[10]).map { $0 > 0 } == true, "width in pixels: \(row)")
        }

        // The annotated photo exists and decodes; its labels are drawn over the outlines.
        let header = try JPEGDecoder.readHeader([UInt8](try Data(contentsOf: URL(fileURLWithPath: annotated))))
        #expect(header.width > 0)
    }

    @Test("--explain follows each book with why its title is what it is, as the result's titleTrace says")
    func explained() async throws {
        let sample = CLITests.samples.appendingPathComponent("shelf_one_row.jpg").path
        try FileManager.default.createDirectory(at: TemporaryFiles.directory, withIntermediateDirectories: true)
        let json = TemporaryFiles.directory.appendingPathComponent("explained-\(UUID().uuidString).json").path
        let run = try await cli.bookscan(["scan", sample, "--explain", "--output", json], environment: ["BOOKSCAN_READ_TITLES": "1"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any])
        let spines = try #require((report["result"] as? [String: Any])?["spines"] as? [[String: Any]])
        let lines = run.stdout.split(separator: "\n").map(String.init)
        try #require(!spines.isEmpty && lines.count == 2 * spines.count, "\(run.stdout)")
        for (i, spine) in spines.enumerated() {
            #expect(lines[2 * i].hasPrefix("\(i + 1). "))
            let why = lines[2 * i + 1]
            #expect(why.hasPrefix("   "), "\(why)")
            guard let trace = spine["titleTrace"] as? [String: Any] else {
                #expect(why.contains("no decision stage ran"), "\(why)")
                continue
            }
            #expect(trace["stage"] as? String == "learned_choice")
            switch trace["source"] as? String {
            case "photo_line": #expect(why.contains("took a line of the photo") && spine["title"] != nil, "\(why)")
            case "rules": #expect(why.contains("kept the rules' title") && spine["title"] != nil, "\(why)")
            default: #expect(spine["title"] == nil && (why.contains("no candidate") || why.contains("sure enough")), "\(why)")
            }
            if let rules = trace["rulesTitle"] as? String { #expect(why.contains("the rules gave \"\(rules)\""), "\(why)") }
        }
    }

    @Test("--json and --quiet keep stdout free of the list")
    func listOnlyForPeople() async throws {
        let sample = CLITests.samples.appendingPathComponent("shelf_one_row.jpg").path
        let quiet = try await cli.bookscan(["scan", sample, "--quiet"])
        #expect(quiet.status == 0)
        #expect(quiet.stdout.isEmpty)
        let json = try await cli.bookscan(["scan", sample, "--json"])
        #expect(json.stdout.split(separator: "\n").count == 1)
    }

    @Test("BOOKSCAN_READ_TITLES=0 finds the books without reading them; the list shows them as unread spines")
    func titlesOff() async throws {
        let sample = CLITests.samples.appendingPathComponent("shelf_one_row.jpg").path
        let run = try await cli.bookscan(["scan", sample], environment: ["BOOKSCAN_READ_TITLES": "0"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").filter { $0.first?.isNumber == true }
        #expect(!lines.isEmpty, "\(run.stdout)")
        #expect(lines.allSatisfy { $0.contains("(unread spine") }, "\(run.stdout)")
        #expect(!run.stderr.contains("reading titles"), "\(run.stderr)")
    }

    @Test("an unwritable --csv is its own exit code (21) and names the file")
    func unwritableCSV() async throws {
        let sample = CLITests.samples.appendingPathComponent("shelf_one_row.jpg").path
        let run = try await cli.bookscan(["scan", sample, "--quiet", "--csv", "/nonexistent-dir/books.csv"])
        #expect(run.status == 21, "\(run.stderr)")
        #expect(run.stderr.contains("/nonexistent-dir/books.csv"))
    }

    @Test("batch writes books.csv with every book of the folder, and --resume keeps it complete")
    func batchBookList() async throws {
        let root = try BatchTests.folder(["a.jpg": try BatchTests.photo(seed: 61), "sub/b.jpg": try BatchTests.photo(seed: 62)])
        #expect(try await cli.bookscan(["batch", root, "--recursive", "--quiet"]).status == 0)
        func spineCount(_ relative: String) throws -> Int {
            let data = try Data(contentsOf: URL(fileURLWithPath: root + "/.bookscan/" + relative + ".json"))
            let stored = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return ((stored["report"] as? [String: Any])?["spineCount"] as? Int) ?? -1
        }
        let expected = try spineCount("a.jpg") + spineCount("sub/b.jpg")
        #expect(expected > 0)
        let first = Self.parseCSV(try String(contentsOfFile: root + "/.bookscan/books.csv", encoding: .utf8)).dropFirst()
        #expect(first.count == expected)
        #expect(Set(first.map { $0[0] }) == ["a.jpg", "sub/b.jpg"])
        // A resumed run rescans nothing, yet the list still holds every book.
        #expect(try await cli.bookscan(["batch", root, "--recursive", "--resume", "--quiet"]).status == 0)
        let second = Self.parseCSV(try String(contentsOfFile: root + "/.bookscan/books.csv", encoding: .utf8)).dropFirst()
        #expect(Array(second) == Array(first))
    }
}
