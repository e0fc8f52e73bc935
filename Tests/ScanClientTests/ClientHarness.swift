import BookscanTestSupport
import FaultProxy
import Foundation
import ImageKit
import ImagePreparation
import Logging
import NIOConcurrencyHelpers
import RunModel
import ScanClient
import ScanProtocol
import ScanService
import Testing

/// A real service on an ephemeral loopback port, optionally behind the fault proxy, and the real
/// client pointed at it. Polling and backoff are quick; deadlines are long unless a test asks for `fastSettings`;
/// nothing is mocked.
struct ClientHarness {
    let service: EmbeddedScanService
    let proxy: FaultProxy?

    static func start(service configuration: ServiceConfiguration = .init(), plan: FaultPlan? = nil) async throws -> ClientHarness {
        var configuration = configuration
        // Heartbeats well inside the client's 1 s silence timeout, so only injected silence looks dead.
        configuration.heartbeatInterval = .milliseconds(200)
        let service = try await EmbeddedScanService.startQuietly(configuration)
        var proxy: FaultProxy?
        if let plan { proxy = try await FaultProxy.start(upstreamPort: service.port, plan: plan) }
        return ClientHarness(service: service, proxy: proxy)
    }

    /// Starts a harness, runs `body` with it, and awaits `stop()` whether `body` returns or throws.
    @discardableResult
    static func with<T>(
        service configuration: ServiceConfiguration = .init(), plan: FaultPlan? = nil, isolation: isolated (any Actor)? = #isolation,
        _ body: (ClientHarness) async throws -> T
    ) async throws -> T {
        try await stopping(try await start(service: configuration, plan: plan), stop: { await $0.stop() }, body)
    }

    func stop() async {
        await proxy?.stop()
        await service.stop()
    }

    var baseURL: String { proxy?.baseURL ?? service.baseURL }

    /// Deadlines that fire soon, for the tests that inject what they detect (a silent socket or stream, a buffering
    /// proxy, an unanswered reconnect) and pass these explicitly: a loaded 2-core machine can miss them on a
    /// healthy transport too, so no test that expects a healthy run uses them.
    static let fastSettings = TrackerSettings(
        pollInterval: .milliseconds(200), firstFrameDeadline: .milliseconds(500), socketGiveUp: .seconds(3), silenceTimeout: .seconds(1),
        maxSocketFailures: 5, backoffBase: .milliseconds(100), backoffCap: .milliseconds(500))

    /// The default: polling and backoff as quick as `fastSettings`, but no deadline (first frame, give-up, silence,
    /// reconnect, lag) a healthy run can miss on a loaded machine (CI once saw 20 s without a frame): a refused
    /// or dropped transport is still detected at once, since that needs no deadline.
    static let patientSettings: TrackerSettings = {
        var settings = fastSettings
        settings.firstFrameDeadline = patientDeadline
        settings.socketGiveUp = patientDeadline
        settings.silenceTimeout = patientDeadline
        settings.reconnectDeadline = patientDeadline
        settings.maxLag = patientDeadline
        return settings
    }()

    /// Longer than any test's run: a deadline this long never fires.
    static let patientDeadline: Duration = .seconds(300)

    /// The client's WebSocket ping interval in these tests: a pong later than it closes the socket, which a
    /// loaded machine must not do to a healthy run.
    static let clientPingInterval: Duration = .seconds(60)

    /// `eventStream`: whether the `auto` ladder includes Server-Sent Events (as with a server whose
    /// limits offer them); false follows a server without them, WebSocket → polling.
    func session(
        mode: TrackerMode = .auto, settings: TrackerSettings = patientSettings, clientPingInterval: Duration = clientPingInterval,
        timeout: Duration? = .seconds(60), eventStream: Bool = true, sharedSocket: SharedEventSocket? = nil
    ) -> ScanSession {
        let api = api()
        var logger = Logger(label: "test.client")
        logger.logLevel = .critical
        var tracker = ProgressTracker(
            api: api, mode: mode, settings: settings, clientPingInterval: clientPingInterval, logger: logger, eventStreamAvailable: eventStream)
        tracker.sharedSocket = sharedSocket
        return ScanSession(api: api, tracker: tracker, timeout: timeout)
    }

    /// The client's API object for this harness (libcurl, short upload retries).
    func api() -> ScanAPI {
        ScanAPI(
            baseURL: baseURL, token: nil, http: CurlHTTPClient(configuration: .init(connectTimeout: .seconds(5))),
            uploadRetry: RetryPolicy(delays: [.zero, .milliseconds(100), .milliseconds(300)], jitter: .milliseconds(20)))
    }

    /// A shared events socket (a batch's) on this harness, judged stale after `staleAfter` without a frame.
    func sharedSocket(staleAfter: Duration = patientSettings.silenceTimeout) -> SharedEventSocket {
        SharedEventSocket(api: api(), staleAfter: staleAfter, pingInterval: Self.clientPingInterval)
    }

    /// Scans `path` and records what the display would have shown.
    func scan(
        _ path: String, mode: TrackerMode = .auto, settings: TrackerSettings = patientSettings, clientPingInterval: Duration = clientPingInterval,
        timeout: Duration? = .seconds(60), eventStream: Bool = true, sharedSocket: SharedEventSocket? = nil
    ) async -> (ScanReport, Observed) {
        let observed = Observed()
        var display = ScanSession.Display()
        display.tracker = TrackerObserver(event: { event, path, fraction in observed.record(event, path, fraction) })
        let report = await session(
            mode: mode, settings: settings, clientPingInterval: clientPingInterval, timeout: timeout, eventStream: eventStream,
            sharedSocket: sharedSocket
        ).scan(
            path: path, preparer: ImagePreparer(longSide: 800), display: display)
        return (report, observed)
    }

    func health() async throws -> HealthStatus { try await service.health() }
}

/// Everything the tracker delivered to the display, in order.
final class Observed: Sendable {
    private let state = NIOLockedValueBox<[(event: JobEvent, path: EventPath, fraction: Double)]>([])

    func record(_ event: JobEvent, _ path: EventPath, _ fraction: Double) { state.withLockedValue { $0.append((event, path, fraction)) } }

    var fractions: [Double] { state.withLockedValue { $0.map(\.fraction) } }
    var seqs: [Int] { state.withLockedValue { $0.map(\.event.seq) } }
    var terminalCount: Int { state.withLockedValue { $0.count { $0.event.state.isTerminal } } }
    var paths: [EventPath] { state.withLockedValue { $0.map(\.path) } }

    /// The displayed fraction never went backwards.
    var isMonotonic: Bool {
        let f = fractions
        return zip(f, f.dropFirst()).allSatisfy { $0 <= $1 }
    }

    /// The delivered seq is strictly increasing (never repeated, never older).
    var seqsIncrease: Bool {
        let s = seqs
        return zip(s, s.dropFirst()).allSatisfy { $0 < $1 }
    }

    /// No seq was delivered twice.
    var hasNoDuplicates: Bool { Set(seqs).count == seqs.count }
}

/// Test images written to a temporary folder.
enum TestImages {
    /// A small synthetic shelf photo (fast to scan in debug builds).
    static func shelf(books: Int = 10, seed: Int = 0) throws -> String { try SyntheticShelf.file(books: books, seed: seed) }
}

/// Slow scans, so faults land in the middle of a job.
let slowScans = ServiceConfiguration().injecting(FaultSeams(scanStepDelay: .milliseconds(15)))

/// A run succeeded and everything it showed is sound: one terminal event, fractions never back, seqs
/// strictly increasing; `everyEvent`: a streamed run shows every event from the first one it shows
/// (polls show snapshots, so a polled run may skip some).
func expectSoundRun(_ report: ScanReport, _ observed: Observed, everyEvent: Bool = false) {
    #expect(report.outcome == .succeeded, "\(report.error ?? "")")
    #expect(observed.terminalCount == 1)
    #expect(observed.isMonotonic)
    #expect(observed.seqsIncrease, "\(observed.seqs)")
    if everyEvent {
        let first = observed.seqs.first ?? 1
        #expect(observed.seqs == Array(first...max(first, observed.seqs.max() ?? first)), "nothing lost: \(observed.seqs)")
    }
}
