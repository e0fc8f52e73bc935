package import Foundation
import NIOConcurrencyHelpers
import Synchronization

/// A child process that keeps running while the test watches it: stdout and stderr are collected
/// by threads of their own (never on the cooperative pool), and the test can wait for a line to appear.
package final class ChildProcess: @unchecked Sendable {
    package let process = Process()
    private let output = NIOLockedValueBox<(stdout: Data, stderr: Data)>((Data(), Data()))
    private let closedPipes = Atomic<Int>(0)

    /// Starts `executable ARGUMENTS` with this process's environment less `removing`, plus `environment`;
    /// with a `launcher`, starts that program with the executable's path and the arguments.
    package init(
        executable: URL, _ arguments: [String], environment: [String: String] = [:], removing: [String] = [], launcher: [String] = []
    ) throws {
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = launcher.dropFirst() + [executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        var env = ProcessInfo.processInfo.environment
        for key in removing { env.removeValue(forKey: key) }
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

    /// Everything the child wrote to stdout so far.
    package var stdout: String { output.withLockedValue { String(decoding: $0.stdout, as: UTF8.self) } }
    /// Everything the child wrote to stderr so far.
    package var stderr: String { output.withLockedValue { String(decoding: $0.stderr, as: UTF8.self) } }
    package var pid: Int32 { process.processIdentifier }

    /// Waits until `condition` holds, checking every 50 ms; gives up (returns false) after `limit`
    /// (a guard against hanging the suite, not a timing assertion).
    package static func until(_ limit: Duration = .seconds(180), _ condition: () async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return await condition()
    }

    /// How long `exit()` waits before it stops a child that never ends: a guard against one hung
    /// child hanging the whole suite, not a timing assertion (no child of the tests runs this long).
    package static let hangGuard: Duration = .seconds(900)

    /// Waits for the process to end, on a thread of its own, and for its output to be read to the
    /// end; the exit status (or signal number). A child still running after `hangGuard` is stopped
    /// (SIGTERM, then SIGKILL) and says so on its stderr, so the test fails naming it instead of hanging.
    package func exit(hangGuard: Duration = ChildProcess.hangGuard) async -> Int32 {
        let process = self.process
        let ended = OneShot()
        Thread {
            Self.waitUntilEnded(process)
            ended.fire()
        }.start()
        let watchdog = Task.detached { [self] in
            try? await Task.sleep(for: hangGuard)
            guard !Task.isCancelled else { return }
            output.withLockedValue {
                $0.stderr.append(Data("\nbookscan tests: the child did not end within \(hangGuard) and was stopped (a hang guard)\n".utf8))
            }
            if process.isRunning {
                kill(process.processIdentifier, SIGTERM)
                try? await Task.sleep(for: .seconds(5))
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                try? await Task.sleep(for: .seconds(5))
            }
            // Ended (or unkillable): stop waiting either way; a reaper that never reports must not hang the suite.
            ended.fire()
        }
        await ended.wait()
        watchdog.cancel()
        _ = await Self.until(.seconds(10)) { closedPipes.load(ordering: .relaxed) == 2 }
        return process.isRunning ? -1 : process.terminationStatus
    }

    /// Blocks the calling thread until `process` has ended. Foundation's `waitUntilExit` can return while the child
    /// still runs (its run loop on a thread of its own had nothing to wait on: a loaded CI machine's run crashed in
    /// `terminationReason`, "task still running"), so the end is polled for after it.
    static func waitUntilEnded(_ process: Process) {
        process.waitUntilExit()
        while process.isRunning { usleep(10_000) }
    }

    /// Waits for processes to end, on a thread of its own (never blocking the cooperative pool).
    package static func wait(_ processes: [Process]) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                for process in processes { Self.waitUntilEnded(process) }
                continuation.resume()
            }.start()
        }
    }
}

/// A signal that fires once and wakes whoever waits for it (any number of `fire` calls, one wait).
final class OneShot: Sendable {
    private let state = NIOLockedValueBox<(fired: Bool, continuation: CheckedContinuation<Void, Never>?)>((false, nil))

    func fire() {
        let continuation = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            guard !state.fired else { return nil }
            state.fired = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLockedValue { state -> Bool in
                if state.fired { return true }
                state.continuation = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
