import BookscanTestSupport
import Foundation

extension ChildProcess {
    /// Starts the `bookscan` binary under test with ARGUMENTS; its analytics and memory go to the
    /// tests' state directory, and no server or token leaks in from the environment.
    static func bookscan(_ arguments: [String], environment: [String: String] = [:], launcher: [String] = []) throws -> ChildProcess {
        var environment = environment
        environment["XDG_STATE_HOME"] = environment["XDG_STATE_HOME"] ?? CLITests.stateDirectory
        // Children find books without reading titles unless a test is about titles (it passes "1"):
        // dozens of debug children reading titles at once starved the 2-core CI machine.
        environment["BOOKSCAN_READ_TITLES"] = environment["BOOKSCAN_READ_TITLES"] ?? "0"
        return try ChildProcess(
            executable: CLITests.binary, arguments, environment: environment, removing: ["BOOKSCAN_SERVER", "BOOKSCAN_TOKEN"],
            launcher: launcher)
    }

    /// `bookscan serve` prints `bookscan serve: listening on SCHEME://HOST:PORT`: the port, once it has.
    var listeningPort: Int? {
        // `--log-format json`: the listening line is an object with the port as a number.
        for line in stderr.split(separator: "\n") where line.hasPrefix("{") {
            if let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                (object["message"] as? String)?.hasPrefix("listening on ") == true, let port = object["port"] as? Int
            {
                return port
            }
        }
        guard let line = stderr.split(separator: "\n").first(where: { $0.hasPrefix("bookscan serve: listening on ") }),
            let scheme = line.range(of: "://"),
            let colon = line[scheme.upperBound...].firstIndex(of: ":")
        else { return nil }
        return Int(line[line.index(after: colon)...].prefix { $0.isNumber })
    }
}

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
        let child = try ChildProcess.bookscan(["serve", "--port", "0"] + arguments, environment: environment)
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
