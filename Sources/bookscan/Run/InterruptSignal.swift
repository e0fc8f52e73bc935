import NIOConcurrencyHelpers
import UnixSignals

/// Turns Ctrl-C into a value every running session can wait on; the first one stops watching,
/// a second one exits at once.
final class InterruptSignal: Sendable {
    private let state = NIOLockedValueBox<(fired: Bool, waiters: [AsyncStream<Void>.Continuation])>((false, []))

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
                if alreadyFired { exit(ExitStatus.interrupted.rawValue) }
                for waiter in waiters { waiter.yield() }
            }
        }
    }

    var fired: Bool { state.withLockedValue { $0.fired } }

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
