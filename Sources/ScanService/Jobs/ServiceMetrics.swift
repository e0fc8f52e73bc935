import Synchronization

/// Counters the service reports on `/healthz`.
final class ServiceMetrics: Sendable {
    let scansStarted = Atomic<Int>(0)
}
