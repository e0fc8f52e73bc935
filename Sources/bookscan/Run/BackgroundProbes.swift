import Foundation
import NIOConcurrencyHelpers
import ScanClient

/// WebSocket probes of adaptive polling runs, run off the critical path: a run's report and its batch
/// slot never wait for one. At most one probe runs at a time (a run that ends while one is in flight
/// is recorded without probing); `drain()` waits for the one in flight before the process exits.
final class BackgroundProbes: Sendable {
    private let running = NIOLockedValueBox<Task<Void, Never>?>(nil)

    /// Starts `probe` then `then(result)` in the background; false (nothing started) when one is already running.
    func start(_ probe: @escaping @Sendable () async -> Bool, then: @escaping @Sendable (Bool) -> Void) -> Bool {
        running.withLockedValue { task in
            guard task == nil else { return false }
            task = Task.detached { [running] in
                let result = await probe()
                then(result)
                running.withLockedValue { $0 = nil }
            }
            return true
        }
    }

    /// Waits for the probe in flight, if any (bounded by the probe's own timeout).
    func drain() async {
        if let task = running.withLockedValue({ $0 }) { await task.value }
    }
}
