import Foundation
import NIOConcurrencyHelpers
import Synchronization

/// A `bookscan` child that keeps running while the test watches it: stdout and stderr are collected
/// by threads of their own (never on the cooperative pool), and the test can wait for a line to appear.
final class ChildProcess: @unchecked Sendable {
    let process = Process()
    private let output = NIOLockedValueBox<(stdout: Data, stderr: Data)>((Data(), Data()))
    private let closedPipes = Atomic<Int>(0)

    /// Starts `bookscan ARGUMENTS`; with a `launcher`, starts that program with the binary's path and the arguments.
    init(_ arguments: [String], environment: [String: String] = [:], launcher: [String] = []) throws {
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = launcher.dropFirst() + [CLITests.binary.path] + arguments
        } else {
            process.executableURL = CLITests.binary
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "BOOKSCAN_SERVER")
        env.removeValue(forKey: "BOOKSCAN_TOKEN")
        env["XDG_STATE_HOME"] = CLITests.stateDirectory
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        for (pipe, isStdout) in [(out, true), (err, false)] {
            let handle = pipe.fileHandleForReading
            Thread { [self] in
                while true {
                    let data = handle.availableData  // blocks; empty at end of file
                    if data.isEmpty {
                        self.closedPipes.add(1, ordering: .relaxed)
                        return
                    }
                    self.output.withLockedValue { if isStdout { $0.stdout.append(data) } else { $0.stderr.append(data) } }
                }
            }.start()
        }
    }

    var stdout: String { output.withLockedValue { String(decoding: $0.stdout, as: UTF8.self) } }
    var stderr: String { output.withLockedValue { String(decoding: $0.stderr, as: UTF8.self) } }
    var pid: Int32 { process.processIdentifier }

    /// Waits until `condition` holds, checking every 50 ms; gives up (returns false) after `limit`
    /// (a guard against hanging the suite, not a timing assertion).
    static func until(_ limit: Duration = .seconds(180), _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return await condition()
    }

    /// Waits for the process to end, on a thread of its own, and for its output to be read to the
    /// end; the exit status (or signal number).
    func exit() async -> Int32 {
        await CLITests.wait([process])
        _ = await Self.until(.seconds(10)) { closedPipes.load(ordering: .relaxed) == 2 }
        return process.terminationStatus
    }

    /// `bookscan serve` prints `bookscan serve: listening on SCHEME://HOST:PORT`: the port, once it has.
    var listeningPort: Int? {
        guard let line = stderr.split(separator: "\n").first(where: { $0.hasPrefix("bookscan serve: listening on ") }),
            let scheme = line.range(of: "://"),
            let colon = line[scheme.upperBound...].firstIndex(of: ":")
        else { return nil }
        return Int(line[line.index(after: colon)...].prefix { $0.isNumber })
    }
}
