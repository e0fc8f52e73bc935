import BookscanBase
import Foundation
import ImagePreparation
import Logging
import ScanClient
import ScanProtocol

/// Wires one command's images through `ScanSession` with the display, `--events` output, the
/// analytics log and adaptive strategy memory.
struct ScanRunner: Sendable {
    let api: ScanAPI
    let tracking: ResolvedTracking
    let display: ProgressDisplay
    let verbose: Bool
    let recorder: RunRecorder
    private let logger: Logger

    init(endpoint: ServiceEndpoint, tracking: ResolvedTracking, display: ProgressDisplay, verbose: Bool, recorder: RunRecorder) {
        var logger = Logger(label: "bookscan")
        logger.logLevel = .critical
        self.logger = logger
        let http = CurlHTTPClient(configuration: .init(caCertificatePath: tracking.caCertificate))
        api = ScanAPI(baseURL: endpoint.baseURL, token: endpoint.token, http: http)
        self.tracking = tracking
        self.display = display
        self.verbose = verbose
        self.recorder = recorder
    }

    /// A session in `mode`, its silence timeout adapted to the server's heartbeat.
    func session(mode: TrackerMode, limits: ServiceLimits? = nil) -> ScanSession {
        var settings = tracking.trackerSettings
        if let heartbeat = limits?.heartbeatSeconds { settings = settings.adapted(toHeartbeat: heartbeat) }
        let tracker = ProgressTracker(api: api, mode: mode, settings: settings, logger: logger)
        return ScanSession(api: api, tracker: tracker, timeout: tracking.timeout)
    }

    /// The server's limits; nil (and defaults are used) when it cannot say.
    func limits() async -> ServiceLimits? { try? await api.limits() }

    func scan(image: String, slot: Int, limits: ServiceLimits?, interrupts: AsyncStream<Void>, printEvents: Bool, command: String = "scan")
        async -> ScanReport
    {
        let name = (image as NSString).lastPathComponent
        display.begin(slot, name: name)
        let preparer = ImagePreparer(longSide: limits?.recommendedLongSide ?? ImagePreparer.defaultLongSide)
        let adaptivePolling = tracking.strategy == .auto && recorder.prefersPolling()
        if adaptivePolling && verbose {
            display.message("\(image): this network's WebSocket failed recently; polling, with a background WebSocket probe")
        }
        let report = await session(mode: adaptivePolling ? .polling : tracking.strategy, limits: limits).scan(
            path: image, preparer: preparer, interrupts: interrupts, display: callbacks(slot: slot, image: image, printEvents: printEvents))
        display.end(slot)
        var probe: Bool?
        if adaptivePolling, let jobId = report.jobId, report.outcome == .succeeded {
            probe = await WebSocketProbe(api: api).probe(jobId: jobId)
        }
        recorder.record(report, command: command, adaptivePolling: adaptivePolling ? true : nil, probeSucceeded: probe, display: display)
        return report
    }

    func watch(jobId: UUID, interrupts: AsyncStream<Void>, printEvents: Bool) async -> ScanReport {
        display.begin(0, name: jobId.uuidString.lowercased())
        let report = await session(mode: tracking.strategy).watch(
            jobId: jobId, interrupts: interrupts, display: callbacks(slot: 0, image: "-", printEvents: printEvents))
        display.end(0)
        recorder.record(report, command: "watch", display: display)
        return report
    }

    private func callbacks(slot: Int, image: String, printEvents: Bool) -> ScanSession.Display {
        var callbacks = ScanSession.Display()
        let display = self.display, verbose = self.verbose
        callbacks.prepared = { prepared in
            if verbose {
                display.message(
                    "\(image): prepared \(prepared.originalWidth)×\(prepared.originalHeight) → \(prepared.width)×\(prepared.height), "
                        + "\(prepared.jpeg.count / 1024) KB in \(Int(prepared.milliseconds)) ms")
            }
        }
        callbacks.uploadProgress = { sent, total in display.uploading(slot, sent: sent, total: total) }
        callbacks.uploadRetry = { attempt, error, delay in
            display.message("\(image): upload failed (\(error)); retry \(attempt) in \(String(format: "%.1f", delay.inSeconds)) s")
        }
        callbacks.tracker = TrackerObserver(
            event: { event, path, fraction in
                display.event(slot, event, fraction: fraction)
                if printEvents { ReportPrinter.printEvent(event, path: path, image: image) }
            },
            path: { path in
                display.path(slot, path)
                if verbose { display.message("\(image): progress now via \(path == .websocket ? "WebSocket" : "polling")") }
            })
        return callbacks
    }
}
