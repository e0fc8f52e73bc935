import BookscanBase
import ArgumentParser

/// The `bookscan` command: scan bookshelf photos through a scan service and follow each job live.
@main
struct Bookscan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bookscan",
        abstract: "Scan bookshelf photos and follow each scan job in real time.",
        version: BookscanVersion.current,
        subcommands: [
            ScanCommand.self, BatchCommand.self, WatchCommand.self, StatsCommand.self, MemoryCommand.self, ServeCommand.self,
            CompletionsCommand.self,
        ]
    )
}
