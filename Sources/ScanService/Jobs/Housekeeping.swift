import Foundation
import ServiceLifecycle

/// Periodically forgets jobs whose TTL has passed (lookups also check expiry lazily).
struct Housekeeping: Service {
    let store: any JobStore
    let interval: Duration

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while (try? await Task.sleep(for: max(interval, .milliseconds(100)))) != nil {
                _ = try? await store.sweep(now: Date())
            }
        }
    }
}
