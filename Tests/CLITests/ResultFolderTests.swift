import BookscanTestSupport
import Foundation
import Testing

/// `bookscan batch` writes only into a real results folder, follows no link planted in it, and
/// `--resume` skips a photo only for a result it can trust (see `StoredResult`).
@Suite("batch results folder: links and planted results")
struct ResultFolderTests {
    let cli = CLITests()

    static func temporaryFolder(_ name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func contents(_ folder: String) -> [String] {
        (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).sorted()
    }

    @Test("DIR/.bookscan or --out being a symbolic link: nothing is scanned or written through it, one line says why, exit 21")
    func symlinkedResultsFolder() async throws {
        for viaOut in [false, true] {
            let root = try BatchTests.folder(["a.jpg": try BatchTests.photo(seed: 41)])
            let elsewhere = try Self.temporaryFolder("elsewhere")
            let link = viaOut ? try Self.temporaryFolder("outs") + "/out" : root + "/.bookscan"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: elsewhere)
            let run = try await cli.bookscan(["batch", root, "--quiet"] + (viaOut ? ["--out", link] : []))
            #expect(run.status == 21, "\(run.stderr)")
            #expect(Self.contents(elsewhere).isEmpty, "written through the link: \(Self.contents(elsewhere))")
            let lines = run.stderr.split(separator: "\n").filter { $0.contains("symbolic link") }
            #expect(!lines.isEmpty && lines.allSatisfy { $0.contains(link) }, "\(run.stderr)")
        }
    }

    @Test("a folder link planted inside the results folder is not written through; the photo's result fails to write, the rest go on")
    func plantedFolderLink() async throws {
        let root = try BatchTests.folder(["a.jpg": try BatchTests.photo(seed: 42), "sub/b.jpg": try BatchTests.photo(seed: 43)])
        let elsewhere = try Self.temporaryFolder("elsewhere")
        try FileManager.default.createDirectory(atPath: root + "/.bookscan", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: root + "/.bookscan/sub", withDestinationPath: elsewhere)
        let run = try await cli.bookscan(["batch", root, "--recursive", "--quiet"])
        #expect(Self.contents(elsewhere).isEmpty, "written through the link: \(Self.contents(elsewhere))")
        #expect(run.stderr.contains("sub/b.jpg: could not write its result") && run.stderr.contains("symbolic link"), "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: root + "/.bookscan/a.jpg.json"))
        let books = try String(contentsOfFile: root + "/.bookscan/books.csv", encoding: .utf8)
        #expect(books.contains("\r\na.jpg,") && !books.contains("sub/b.jpg"))
    }

    /// Rewrites the stored result of `name` with `change` applied to its JSON object.
    static func tamper(_ root: String, _ name: String, _ change: (inout [String: Any]) -> Void) throws {
        let path = root + "/.bookscan/" + name + ".json"
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        change(&object)
        try FileManager.default.removeItem(atPath: path)
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
    }

    static func report(_ object: inout [String: Any], _ change: (inout [String: Any]) -> Void) {
        var report = object["report"] as? [String: Any] ?? [:]
        change(&report)
        object["report"] = report
    }

    @Test("--resume rescans, and says so, each photo whose stored result has the right hash but cannot be trusted")
    func plantedResults() async throws {
        var files: [String: [UInt8]] = [:]
        let names = ["control", "no-job", "wrong-count", "other-photo", "failed-state", "link", "group-writable", "hard-link", "garbage"]
        for (i, name) in names.enumerated() { files[name + ".jpg"] = try BatchTests.photo(seed: 50 + i) }
        let root = try BatchTests.folder(files)
        let first = try await cli.bookscan(["batch", root, "--quiet", "--jobs", "4"])
        #expect(first.status == 0, "\(first.stderr)")

        try Self.tamper(root, "no-job.jpg") { Self.report(&$0) { $0["jobId"] = nil } }
        try Self.tamper(root, "wrong-count.jpg") { Self.report(&$0) { $0["spineCount"] = ($0["spineCount"] as? Int ?? 0) + 5 } }
        try Self.tamper(root, "other-photo.jpg") { $0["image"] = "control.jpg" }
        try Self.tamper(root, "failed-state.jpg") { Self.report(&$0) { $0["state"] = "failed" } }
        // A link to a trustworthy result elsewhere (the control's own, copied out).
        let elsewhere = try Self.temporaryFolder("planted") + "/link.jpg.json"
        try FileManager.default.copyItem(atPath: root + "/.bookscan/link.jpg.json", toPath: elsewhere)
        try FileManager.default.removeItem(atPath: root + "/.bookscan/link.jpg.json")
        try FileManager.default.createSymbolicLink(atPath: root + "/.bookscan/link.jpg.json", withDestinationPath: elsewhere)
        try FileManager.default.setAttributes([.posixPermissions: 0o664], ofItemAtPath: root + "/.bookscan/group-writable.jpg.json")
        try FileManager.default.linkItem(atPath: root + "/.bookscan/hard-link.jpg.json", toPath: try Self.temporaryFolder("hard") + "/x.json")
        try Data("{\"image\":\"garbage.jpg\"".utf8).write(to: URL(fileURLWithPath: root + "/.bookscan/garbage.jpg.json"))

        let resumed = try await cli.bookscan(["batch", root, "--resume", "--json", "--quiet", "--jobs", "4"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let summary = try BatchTests().summary(resumed.stdout)
        #expect(summary["unchanged"] as? Int == 1, "\(resumed.stderr)")
        #expect(summary["succeeded"] as? Int == names.count - 1, "\(resumed.stderr)")
        for name in names.dropFirst() {
            let lines = resumed.stderr.split(separator: "\n").filter {
                $0.hasPrefix("bookscan: \(name).jpg: its result ") && $0.hasSuffix("; scanning it again")
            }
            #expect(lines.count == 1, "\(name): \(resumed.stderr)")
        }
        // Each is a trustworthy result again: a third run skips them all.
        let third = try await cli.bookscan(["batch", root, "--resume", "--json", "--quiet"])
        #expect(try BatchTests().summary(third.stdout)["unchanged"] as? Int == names.count, "\(third.stderr)")
        #expect(!third.stderr.contains("scanning it again"), "\(third.stderr)")
    }

    @Test("--resume does not trust a result owned by another user", .enabled(if: geteuid() == 0, "needs root to give a file away"))
    func resultOfAnotherUser() async throws {
        let root = try BatchTests.folder(["a.jpg": try BatchTests.photo(seed: 60)])
        #expect(try await cli.bookscan(["batch", root, "--quiet"]).status == 0)
        #expect(chown(root + "/.bookscan/a.jpg.json", 4242, 4242) == 0)
        let resumed = try await cli.bookscan(["batch", root, "--resume", "--json", "--quiet"])
        #expect(try BatchTests().summary(resumed.stdout)["succeeded"] as? Int == 1, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("a.jpg: its result belongs to another user; scanning it again"), "\(resumed.stderr)")
    }
}
