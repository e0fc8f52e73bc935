import NIOConcurrencyHelpers
import UnixSignals

/// Turns Ctrl-C into a value every running session can wait on; the first one stops watching,
/// a second one exits at once (11) — after the runs still in flight have written what they must
/// (their analytics record, a batch's result file) through `onForcedExit`.
final class InterruptSignal: Sendable {
    private struct State {
        var fired = false
        var waiters: [AsyncStream<Void>.Continuation] = []
        var hooks: [Int: @Sendable () -> Void] = [:]
        var nextHook = 0
        /// Runs writing their own records right now (`finishing`).
        var writing = 0
    }

    private let state = NIOLockedValueBox(State())

    /// Starts trapping SIGINT (and SIGTERM).
    func install() async -> Task<Void, Never> {
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        return Task {
            for await _ in signals {
                let (alreadyFired, waiters) = state.withLockedValue { s in
                    let previous = s.fired
                    s.fired = true
                    return (previous, s.waiters)
                }
                if alreadyFired { forcedExit() }
                for waiter in waiters { waiter.yield() }
            }
        }
    }

    var fired: Bool { state.withLockedValue { $0.fired } }

    /// Registers what to write if a second Ctrl-C ends the process before the run does; the
    /// returned token removes it (`done(_:)`) once the run has written its own records.
    func onForcedExit(_ hook: @escaping @Sendable () -> Void) -> Int {
        state.withLockedValue { s in
            s.nextHook += 1
            s.hooks[s.nextHook] = hook
            return s.nextHook
        }
    }

    /// The run of `token` writes its own records with `body`, unless a second Ctrl-C already took its
    /// hook: then the hook writes them and the process is exiting, so this never returns (the run must
    /// not go on and let the command end the process before the hook's write is done). A forced exit
    /// waits for a `body` under way, so no record or result file is cut off half written.
    func finishing(_ token: Int, _ body: () -> Void) async {
        let mine = state.withLockedValue { s in
            guard s.hooks.removeValue(forKey: token) != nil else { return false }
            s.writing += 1
            return true
        }
        guard mine else { await Self.untilExit() }
        body()
        state.withLockedValue { $0.writing -= 1 }
    }

    /// Suspends for good: the forced exit under way ends the process.
    private static func untilExit() async -> Never {
        await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
        exit(ExitStatus.interrupted.rawValue)
    }

    /// The second Ctrl-C: every run in flight records itself as stopped, then the process exits 11.
    private func forcedExit() -> Never {
        let hooks = state.withLockedValue { s in
            let hooks = s.hooks.sorted { $0.key < $1.key }.map(\.value)
            s.hooks = [:]
            return hooks
        }
        for hook in hooks { hook() }
        // Runs already writing their records finish them (a file write: milliseconds; bounded all the same).
        for _ in 0..<500 where state.withLockedValue({ $0.writing > 0 }) { usleep(10_000) }
        exit(ExitStatus.interrupted.rawValue)
    }

    /// A stream that yields once when Ctrl-C is pressed (at once if it already was).
    func stream() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let fired = state.withLockedValue { s in
            s.waiters.append(continuation)
            return s.fired
        }
        if fired { continuation.yield() }
        return stream
    }
}

#if canImport(Glibc)
import Glibc
#endif
