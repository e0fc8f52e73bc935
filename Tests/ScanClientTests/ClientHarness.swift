import FaultProxy
import Foundation
import ImageKit
import ImagePreparation
import Logging
import NIOConcurrencyHelpers
import ScanClient
import ScanProtocol
import ScanService

/// A real service on an ephemeral loopback port, optionally behind the fault proxy, and the real
/// client pointed at it. Timings are shortened so fault tests run quickly; nothing is mocked.
struct ClientHarness {
    let service: EmbeddedScanService
    let proxy: FaultProxy?

    static func start(service configuration: ServiceConfiguration = .init(), plan: FaultPlan? = nil) async throws -> ClientHarness {
        var configuration = configuration
        // Heartbeats well inside the client's 1 s silence timeout, so only injected silence looks dead.
        configuration.heartbeatInterval = .milliseconds(200)
        var logger = Logger(label: "test.service")
        logger.logLevel = .critical
        let service = try await EmbeddedScanService.start(configuration: configuration, logger: logger)
        var proxy: FaultProxy?
        if let plan { proxy = try await FaultProxy.start(upstreamPort: service.port, plan: plan) }
        return ClientHarness(service: service, proxy: proxy)
    }

    func stop() async {
        await proxy?.stop()
        await service.stop()
    }

    var baseURL: String { proxy?.baseURL ?? service.baseURL }

    static let fastSettings = TrackerSettings(
        pollInterval: .milliseconds(200), firstFrameDeadline: .milliseconds(500), socketGiveUp: .seconds(3), silenceTimeout: .seconds(1),
        maxSocketFailures: 5, backoffBase: .milliseconds(100), backoffCap: .milliseconds(500))

    func session(
        mode: TrackerMode = .auto, settings: TrackerSettings = fastSettings, clientPingInterval: Duration = .seconds(2),
        timeout: Duration? = .seconds(60)
    ) -> ScanSession {
        let api = ScanAPI(
            baseURL: baseURL, token: nil, http: CurlHTTPClient(configuration: .init(connectTimeout: .seconds(5))),
            uploadRetry: RetryPolicy(delays: [.zero, .milliseconds(100), .milliseconds(300)], jitter: .milliseconds(20)))
        var logger = Logger(label: "test.client")
        logger.logLevel = .critical
        let tracker = ProgressTracker(api: api, mode: mode, settings: settings, clientPingInterval: clientPingInterval, logger: logger)
        return ScanSession(api: api, tracker: tracker, timeout: timeout)
    }

    /// Scans `path` and records what the display would have shown.
    func scan(
        _ path: String, mode: TrackerMode = .auto, settings: TrackerSettings = fastSettings, clientPingInterval: Duration = .seconds(2),
        timeout: Duration? = .seconds(60)
    ) async -> (ScanReport, Observed) {
        let observed = Observed()
        var display = ScanSession.Display()
        display.tracker = TrackerObserver(event: { event, path, fraction in observed.record(event, path, fraction) })
        let report = await session(mode: mode, settings: settings, clientPingInterval: clientPingInterval, timeout: timeout).scan(
            path: path, preparer: ImagePreparer(longSide: 800), display: display)
        return (report, observed)
    }

    func health() async throws -> HealthStatus {
        let response = try await CurlHTTPClient().send(HTTPRequestData(method: "GET", url: service.baseURL + Routes.health))
        return try WireCoding.decode(HealthStatus.self, from: Data(response.body))
    }
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

    /// No seq was delivered twice.
    var hasNoDuplicates: Bool { Set(seqs).count == seqs.count }
}

/// Test images written to a temporary folder.
enum TestImages {
    /// A small synthetic shelf photo (fast to scan in debug builds).
    static func shelf(books: Int = 10, seed: Int = 0) throws -> String {
        var image = PixelBuffer(width: 640, height: 480, fill: (40, 28, 20))
        image.fillRectangle(x: 0, y: 440, width: 640, height: 40, color: (150, 110, 70))
        let width = 600 / books
        for i in 0..<books {
            let h = 220 + (i * 37 + seed * 11) % 150
            let shade = UInt8((i * 53 + seed * 29) % 200 + 40)
            image.fillRectangle(x: 20 + i * width, y: 440 - h, width: width - 4, height: h, color: (shade, 255 - shade, UInt8(i * 30 % 255)))
        }
        return try write(try JPEGEncoder.encode(image, quality: 90), name: "shelf-\(books)-\(seed).jpg")
    }

    static func write(_ bytes: [UInt8], name: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bookscan-tests-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }
}

/// Slow scans, so faults land in the middle of a job.
let slowScans = ServiceConfiguration(faults: FaultOptions(scanStepDelay: .milliseconds(15)))
