import BookscanTestSupport
import Foundation
import ScanProtocol
import Testing

/// What a server says about a failed job reaches the terminal, `--json` and a batch's summary cleaned
/// and capped (`ServerText`): no escape sequence of it runs in the user's terminal.
@Suite("server error text on the command line")
struct ServerErrorTextTests {
    let cli = CLITests()

    static let hostile = "engine\u{1B}]0;owned\u{07}\u{1B}[2J\u{1B}[1;31m exploded\r\n\u{9B}5n" + String(repeating: "Z", count: 50_000)

    static func inert(_ text: some StringProtocol) -> Bool {
        !text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }

    @Test("a failed job's message: one clean, capped line on stderr, in --json and in the batch summary")
    func failedJob() async throws {
        let service = try ScriptedService(
            upload: { _ in .snapshot(state: .running, stage: .decoding, fraction: 0.1, seq: 1) },
            poll: { _ in
                .snapshot(
                    state: .failed, stage: .done, fraction: 1, seq: 2,
                    error: ErrorBody(code: .scanFailed, message: Self.hostile, retryable: false))
            })
        defer { service.stop() }
        let root = try BatchTests.folder(["a.jpg": try BatchTests.photo(seed: 80)])
        let tracking = ["--server", service.url, "--strategy", "polling", "--poll-interval", "100ms", "--no-analytics"]
        let scan = try await cli.bookscan(["scan", root + "/a.jpg", "--json"] + tracking)
        #expect(scan.status == 1, "\(scan.stderr.prefix(500))")
        let line = try #require(scan.stderr.split(separator: "\n").last { $0.contains("exploded") })
        #expect(Self.inert(line), "\(line.debugDescription)")
        #expect(line.hasSuffix("…") && line.count < 400, "\(line.count)")
        #expect(line.contains("engine exploded ZZZ"), "\(line)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(scan.stdout.utf8)) as? [String: Any])
        let error = try #require(json["error"] as? String)
        #expect(Self.inert(error) && error.unicodeScalars.count <= 300, "\(error.prefix(80).debugDescription)")

        let batch = try await cli.bookscan(["batch", root, "--json", "--quiet"] + tracking)
        #expect(batch.status == 2)
        #expect(Self.inert(batch.stderr.replacingOccurrences(of: "\n", with: "")), "\(batch.stderr.prefix(300).debugDescription)")
        #expect(batch.stdout.utf8.count < 5_000, "the summary carries the whole message: \(batch.stdout.utf8.count) bytes")
    }
}
