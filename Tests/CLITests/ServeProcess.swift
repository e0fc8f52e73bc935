import Foundation

/// A real `bookscan serve --port 0` child, started and waited for until it listens, for tests
/// that need the standalone service (TLS flags, its log, the token).
struct ServeProcess {
    let child: ChildProcess
    /// The port from its "listening on" line.
    let port: Int

    /// Everything the service wrote to stderr so far.
    var stderr: String { child.stderr }

    /// Starts the service and waits for its "listening on" line; if it exits first, throws
    /// `ServeFailure` with what it printed.
    static func start(_ arguments: [String], environment: [String: String] = [:]) async throws -> ServeProcess {
        let child = try ChildProcess(["serve", "--port", "0"] + arguments, environment: environment)
        _ = await ChildProcess.until(.seconds(60)) { child.listeningPort != nil || !child.process.isRunning }
        guard let port = child.listeningPort else {
            if child.process.isRunning { child.process.terminate() }
            _ = await child.exit()
            throw ServeFailure(output: child.stderr)
        }
        return ServeProcess(child: child, port: port)
    }

    /// Stops the service with SIGTERM and returns its whole stderr.
    func stop() async -> String {
        if child.process.isRunning { child.process.terminate() }
        _ = await child.exit()
        return child.stderr
    }
}

/// `bookscan serve` ended before it listened; `output` is what it printed.
struct ServeFailure: Error {
    let output: String
}
