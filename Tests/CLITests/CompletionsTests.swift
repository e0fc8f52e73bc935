import BookscanTestSupport
import Foundation
import Testing

/// `bookscan completions bash|zsh|fish`: the scripts swift-argument-parser makes, through the real binary.
@Suite("bookscan completions")
struct CompletionsTests {
    @Test("completions: the bash, zsh and fish scripts name every subcommand and the stats options", arguments: ["bash", "zsh", "fish"])
    func completions(shell: String) async throws {
        let run = try await CLITests().bookscan(["completions", shell])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("bookscan"))
        for subcommand in ["scan", "batch", "watch", "stats", "memory", "serve", "completions"] {
            // bash and zsh: a completion function per subcommand; fish: the subcommand offered after `bookscan`.
            let offered = shell == "fish" ? "-fa '\(subcommand)'" : "_bookscan_\(subcommand)()"
            #expect(run.stdout.contains(offered), "\(shell): \(subcommand)")
        }
        #expect(run.stdout.contains(shell == "fish" ? "-l 'html'" : "--html"), "\(shell): the stats options are completed too")
    }

    @Test("completions: an unknown or missing shell is exit 64 with the valid names")
    func unknownShell() async throws {
        let run = try await CLITests().bookscan(["completions", "tcsh"])
        #expect(run.status == 64)
        #expect(run.stdout.isEmpty)
        for word in ["tcsh", "bash", "zsh", "fish"] { #expect(run.stderr.contains(word), "\(run.stderr)") }
        #expect(try await CLITests().bookscan(["completions"]).status == 64)
    }
}
