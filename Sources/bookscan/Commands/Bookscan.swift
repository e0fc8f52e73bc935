import ArgumentParser
import BookscanBase
import SpineReading

/// The `bookscan` command: scan bookshelf photos through a scan service and follow each job live.
@main
struct Bookscan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bookscan",
        abstract: "Scan bookshelf photos and follow each scan job in real time.",
        version: "bookscan \(BookscanVersion.withCommit)\nreading engines: \(ReadingEngineVersions.summary)",
        subcommands: [
            ScanCommand.self, BatchCommand.self, WatchCommand.self, StatsCommand.self, MemoryCommand.self, ServeCommand.self,
            CompletionsCommand.self,
        ]
    )
}
