import NIOConcurrencyHelpers

/// Runs `operation` in a task of its own and returns when it ends or when the caller is canceled,
/// whichever comes first. On cancellation the operation is canceled but not awaited: WSClient can
/// hang forever in an upgrade whose connection the peer closed (swift-nio#3209; a plain-HTTP client
/// at a TLS port shows it), and a hung connect must never hold up the end of a run.
func runAbandoningOnCancel(_ operation: @escaping @Sendable () async -> Void) async {
    let race = CancelRace()
    await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let task = Task {
                await operation()
                race.finish()
            }
            race.install(continuation, task: task)
        }
    } onCancel: {
        race.finish(cancel: true)
    }
}

/// Whoever comes first, the operation's end or the caller's cancellation, resumes the caller once.
private final class CancelRace: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, Never>?
        var task: Task<Void, Never>?
        var finished = false
        var canceled = false
    }
    private let state = NIOLockedValueBox(State())

    func install(_ continuation: CheckedContinuation<Void, Never>, task: Task<Void, Never>) {
        let (resumeNow, cancelNow) = state.withLockedValue { state -> (Bool, Bool) in
            if state.finished { return (true, state.canceled) }
            state.continuation = continuation
            state.task = task
            return (false, false)
        }
        if cancelNow { task.cancel() }
        if resumeNow { continuation.resume() }
    }

    func finish(cancel: Bool = false) {
        let (continuation, task) = state.withLockedValue { state -> (CheckedContinuation<Void, Never>?, Task<Void, Never>?) in
            guard !state.finished else { return (nil, nil) }
            state.finished = true
            state.canceled = cancel
            defer { state.continuation = nil }
            return (state.continuation, cancel ? state.task : nil)
        }
        task?.cancel()
        continuation?.resume()
    }
}
