import Foundation
import Synchronization

/// A real `bookscan serve` process on an ephemeral loopback port, its stderr collected, for
/// tests that need the standalone service (TLS flags, its logs, the token).
final class ServeProcess: Sendable {
    let process: Process
    /// The port from its "listening on" line.
    let port: Int
    private let log: Log

    /// Collected stderr of the service.
    private final class Log: Sendable {
        let text = Mutex("")
        let ended = Mutex(false)
    }

    private init(process: Process, port: Int, log: Log) {
        self.process = process
        self.port = port
        self.log = log
    }

    /// Everything the service wrote to stderr so far.
    var stderr: String { log.text.withLock { $0 } }

    /// Starts `bookscan serve --port 0 ARGUMENTS` and waits for its "listening on" line; if it
    /// exits first, throws `ServeFailure` with what it printed.
    static func start(_ arguments: [String], environment: [String: String] = [:]) async throws -> ServeProcess {
        let process = Process()
        process.executableURL = CLITests.binary
        process.arguments = ["serve", "--port", "0"] + arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "BOOKSCAN_TOKEN")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        let log = Log()
        try process.run()
        let reader = err.fileHandleForReading
        Thread {
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                log.text.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
            }
            log.ended.withLock { $0 = true }
        }.start()
        // Hang guard only: the service normally listens within a second.
        for _ in 0..<600 {
            let text = log.text.withLock { $0 }
            if let port = Self.port(in: text) { return ServeProcess(process: process, port: port, log: log) }
            if log.ended.withLock({ $0 }) { throw ServeFailure(output: text) }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        throw ServeFailure(output: log.text.withLock { $0 })
    }

    /// Stops the service with SIGTERM and returns its whole stderr.
    func stop() async -> String {
        if process.isRunning { process.terminate() }
        await CLITests.wait([process])
        for _ in 0..<100 where !log.ended.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(20)) }
        return stderr
    }

    private static func port(in text: String) -> Int? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("bookscan serve: listening on") }),
            let url = line.split(separator: " ").first(where: { $0.contains("://") }),
            let colon = url.lastIndex(of: ":")
        else { return nil }
        return Int(url[url.index(after: colon)...])
    }
}

/// `bookscan serve` ended before it listened; `output` is what it printed.
struct ServeFailure: Error {
    let output: String
}
