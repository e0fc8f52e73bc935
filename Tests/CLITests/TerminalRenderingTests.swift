import BookscanTestSupport
import Foundation
import Testing

/// What a user sees on a real terminal: `bookscan` runs under a pseudo-terminal (`script` from
/// util-linux), and its output is replayed through a small screen model (cursor up, erase line,
/// carriage return, newline) to get the final screen.
@Suite("terminal rendering")
struct TerminalRenderingTests {
    /// The text of each screen line after replaying `output`.
    static func screen(_ output: String) -> [String] {
        var lines: [[Unicode.Scalar]] = [[]]
        var row = 0, column = 0
        let scalars = Array(output.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let scalar = scalars[i]
            if scalar == "\u{1B}", i + 1 < scalars.count, scalars[i + 1] == "[" {
                var j = i + 2
                var parameters = ""
                while j < scalars.count, !(("A"..."Z").contains(scalars[j]) || ("a"..."z").contains(scalars[j])) {
                    parameters.unicodeScalars.append(scalars[j])
                    j += 1
                }
                guard j < scalars.count else { break }
                let count = Int(parameters) ?? 1
                switch scalars[j] {
                case "A": row = max(0, row - count)
                case "B":
                    row += count
                    while lines.count <= row { lines.append([]) }
                case "K":
                    if parameters == "2" {
                        lines[row] = []
                    } else {
                        lines[row] = Array(lines[row].prefix(column))
                    }
                default: break  // colours and modes do not move text
                }
                i = j + 1
                continue
            }
            switch scalar {
            case "\r": column = 0
            case "\n":
                row += 1
                while lines.count <= row { lines.append([]) }
            default:
                while lines[row].count < column { lines[row].append(" ") }
                if column < lines[row].count { lines[row][column] = scalar } else { lines[row].append(scalar) }
                column += 1
            }
            i += 1
        }
        return lines.map { String(String.UnicodeScalarView($0)) }.filter { !$0.isEmpty }
    }

    @Test("the screen model replays cursor movement and erasing")
    func screenModel() {
        #expect(Self.screen("one\r\ntwo\u{1B}[1A\r\u{1B}[2Kuno\r\n") == ["uno", "two"])
        #expect(Self.screen("abcdef\rxy") == ["xycdef"])
    }

    @Test("batch on a terminal: the closing summary replaces the live lines, nothing of them is left on screen")
    func batchSummaryOnTerminal() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tty-batch-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (seed, name) in ["a.jpg", "b.jpg", "c.jpg"].enumerated() {
            try Data(try BatchTests.photo(seed: 70 + seed)).write(to: URL(fileURLWithPath: folder + "/" + name))
        }
        let log = folder + "-analytics.jsonl"
        let command = [CLITests.binary.path, "batch", folder, "--analytics-log", log].map { "'" + $0 + "'" }.joined(separator: " ")
        let child = try ChildProcess(
            executable: URL(fileURLWithPath: "/usr/bin/script"), ["-qfec", command, "/dev/null"],
            environment: ["TERM": "xterm", "XDG_STATE_HOME": CLITests.stateDirectory, "COLUMNS": "200"],
            removing: ["BOOKSCAN_SERVER", "BOOKSCAN_TOKEN"])
        let status = await child.exit()
        #expect(status == 0, "\(child.stdout)")
        let raw = child.stdout
        #expect(raw.contains("\u{1B}[2K"), "not drawn live: \(raw.debugDescription)")  // it really was a terminal
        let screen = Self.screen(raw)
        let summary = try #require(screen.firstIndex { $0.hasPrefix("3 succeeded, 0 failed, 0 skipped") }, "\(screen)")
        let strategies = try #require(screen.first { $0.hasPrefix("strategies: ") }, "\(screen)")
        #expect(!strategies.contains("█") && !strategies.contains("░") && !strategies.contains("ETA"), "\(screen)")
        #expect(screen.allSatisfy { !$0.contains("█") && !$0.contains("░") }, "live lines left on screen: \(screen)")
        #expect(screen.last?.hasPrefix("results in ") == true, "\(screen)")
        #expect(summary < screen.count - 1)
    }
}
