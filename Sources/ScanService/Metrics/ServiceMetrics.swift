import CoreMetrics
import Metrics
import Prometheus
import ScanProtocol
import Synchronization

/// The service's numbers: the counters `/healthz` shows and every series of `/metrics`, recorded
/// through swift-metrics into a Prometheus registry of this service's own (two services in one
/// process, as in tests, never mix their numbers; nothing global is bootstrapped).
final class ServiceMetrics: Sendable {
    let scansStarted = Atomic<Int>(0)
    let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory

    /// How a subscriber follows events.
    enum Transport: String, CaseIterable, Sendable {
        case websocket
        case sse
    }

    /// Metric names, defined once.
    enum Name {
        static let httpRequests = "bookscan_http_requests_total"
        static let uploadBytes = "bookscan_upload_bytes_total"
        static let jobs = "bookscan_jobs"
        static let queueDepth = "bookscan_queue_depth"
        static let scansStarted = "bookscan_scans_started_total"
        static let stageSeconds = "bookscan_scan_stage_seconds"
        static let ocrSpineSeconds = "bookscan_ocr_spine_seconds"
        static let eventsSent = "bookscan_events_sent_total"
        static let subscribers = "bookscan_subscribers"
        static let upgradeRefusals = "bookscan_upgrade_refusals_total"
        static let heartbeats = "bookscan_heartbeats_total"
        static let claimSeconds = "bookscan_claim_seconds"
        static let leaseRenewals = "bookscan_lease_renewals_total"
        static let jobsRescued = "bookscan_jobs_rescued_total"
        static let notifications = "bookscan_notifications_total"
    }

    init() {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets[Name.ocrSpineSeconds] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000].map { Duration.milliseconds($0) }
        factory.durationHistogramBuckets[Name.claimSeconds] = [0.5, 1, 2, 5, 10, 25, 50, 100, 250, 1000].map { Duration.milliseconds($0) }
        self.registry = registry
        self.factory = factory
        // Every series a dashboard expects exists from the start, at zero.
        for transport in Transport.allCases {
            Meter(label: Name.subscribers, dimensions: [("transport", transport.rawValue)], factory: factory).set(0)
            Counter(label: Name.eventsSent, dimensions: [("transport", transport.rawValue)], factory: factory).increment(by: 0)
            Counter(label: Name.heartbeats, dimensions: [("transport", transport.rawValue)], factory: factory).increment(by: 0)
        }
        Counter(label: Name.uploadBytes, factory: factory).increment(by: 0)
        Counter(label: Name.scansStarted, factory: factory).increment(by: 0)
        setJobCounts([:])
    }

    /// One HTTP request answered (`route`: the router's pattern, or `unmatched`).
    func request(method: String, route: String, status: Int) {
        Counter(label: Name.httpRequests, dimensions: [("method", method), ("route", route), ("status", "\(status)")], factory: factory).increment()
    }

    /// An upgrade refused: the request went on as plain HTTP and got `status`.
    func upgradeRefused(status: Int) {
        Counter(label: Name.upgradeRefusals, dimensions: [("status", "\(status)")], factory: factory).increment()
    }

    func uploaded(bytes: Int) { Counter(label: Name.uploadBytes, factory: factory).increment(by: Int64(bytes)) }

    func scanStarted() {
        scansStarted.add(1, ordering: .relaxed)
        Counter(label: Name.scansStarted, factory: factory).increment()
    }

    /// A finished scan's stage times, and the reading time per spine when titles were read.
    func scanFinished(_ result: ScanResult) {
        for timing in result.timings {
            Timer(label: Name.stageSeconds, dimensions: [("stage", timing.stage.rawValue)], factory: factory)
                .recordNanoseconds(Int64(timing.milliseconds * 1_000_000))
            if timing.stage == .readingTitles, !result.spines.isEmpty {
                let perSpine = Int64(timing.milliseconds * 1_000_000 / Double(result.spines.count))
                let timer = Timer(label: Name.ocrSpineSeconds, factory: factory)
                for _ in result.spines { timer.recordNanoseconds(perSpine) }
            }
        }
    }

    func subscriberOpened(_ transport: Transport) { Meter(label: Name.subscribers, dimensions: [("transport", transport.rawValue)], factory: factory).increment() }
    func subscriberClosed(_ transport: Transport) { Meter(label: Name.subscribers, dimensions: [("transport", transport.rawValue)], factory: factory).decrement() }
    func eventSent(_ transport: Transport) { Counter(label: Name.eventsSent, dimensions: [("transport", transport.rawValue)], factory: factory).increment() }
    func heartbeatSent(_ transport: Transport) { Counter(label: Name.heartbeats, dimensions: [("transport", transport.rawValue)], factory: factory).increment() }

    /// Jobs per state and the queue depth, as the store counts them (set at each scrape).
    func setJobCounts(_ counts: [JobState: Int]) {
        for state in JobState.allCases {
            Meter(label: Name.jobs, dimensions: [("state", state.rawValue)], factory: factory).set(counts[state, default: 0])
        }
        Meter(label: Name.queueDepth, factory: factory).set(counts[.queued, default: 0])
    }

    // MARK: the shared store (PostgreSQL)

    func claimed(after duration: Duration) {
        Timer(label: Name.claimSeconds, factory: factory).recordNanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }
    func leaseRenewed() { Counter(label: Name.leaseRenewals, factory: factory).increment() }
    func jobRescued() { Counter(label: Name.jobsRescued, factory: factory).increment() }
    func notificationReceived() { Counter(label: Name.notifications, factory: factory).increment() }

    /// Registers the shared-store series at zero (an instance on a database shows them from the start).
    func registerSharedStore() {
        Counter(label: Name.leaseRenewals, factory: factory).increment(by: 0)
        Counter(label: Name.jobsRescued, factory: factory).increment(by: 0)
        Counter(label: Name.notifications, factory: factory).increment(by: 0)
    }

    /// The Prometheus text exposition of every series.
    func exposition() -> [UInt8] { registry.emitToBuffer() }
}
