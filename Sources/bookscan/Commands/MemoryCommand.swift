import ArgumentParser
import Foundation
import ScanAnalytics

/// `bookscan memory show|forget`: the adaptive per-network strategy memory.
struct MemoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "memory",
        abstract: "Show or clear what bookscan remembers per network about the WebSocket and SSE.",
        subcommands: [Show.self, Forget.self],
        defaultSubcommand: Show.self
    )

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List remembered networks and verdicts.")

        func run() throws {
            let memory = StrategyMemory(path: StrategyMemory.defaultPath())
            let (entries, warning) = memory.entries()
            if let warning { FileHandle.standardError.write(Data("bookscan: \(warning)\n".utf8)) }
            let current = NetworkFingerprint.current()
            print("this network: \(current.id)\(current.interface.map { " (via \($0))" } ?? "")")
            guard !entries.isEmpty else {
                print("nothing remembered yet (\(memory.path))")
                return
            }
            let now = Date()
            for entry in entries {
                print("network \(entry.network)  server \(entry.server)  \(entry.describe(at: now))")
            }
        }
    }

    struct Forget: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget every network, or one.")
        @Option(help: "Only this network id (from `bookscan memory show`).") var network: String?

        func run() throws {
            let removed = try StrategyMemory(path: StrategyMemory.defaultPath()).forget(network: network)
            print("forgot \(removed) entr\(removed == 1 ? "y" : "ies")")
        }
    }
}
