import BookscanBase
import Foundation
import ImagePreparation
import Logging
import RunModel
import ScanAnalytics
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
    let probes = BackgroundProbes()
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
    func session(
        mode: TrackerMode, limits: ServiceLimits? = nil, ladderStart: StreamTransport = .websocket, sharedSocket: SharedEventSocket? = nil
    ) -> ScanSession {
        var tracker = ProgressTracker(
            api: api, mode: mode, settings: settings(limits: limits), logger: logger, ladderStart: ladderStart,
            eventStreamAvailable: limits.map { $0.eventStream == true } ?? true)
        tracker.sharedSocket = sharedSocket
        return ScanSession(api: api, tracker: tracker, timeout: tracking.timeout)
    }

    /// The tracker settings, the silence timeout adapted to the server's heartbeat.
    private func settings(limits: ServiceLimits?) -> TrackerSettings {
        var settings = tracking.trackerSettings
        if let heartbeat = limits?.heartbeatSeconds { settings = settings.adapted(toHeartbeat: heartbeat) }
        return settings
    }

    /// One events socket for every job of a batch, when the server offers the multiplexed route and
    /// the strategy uses a WebSocket at all; nil otherwise (each job then opens its own).
    func sharedEventSocket(limits: ServiceLimits?) -> SharedEventSocket? {
        guard limits?.maxJobsPerEventSocket != nil, tracking.strategy == .auto || tracking.strategy == .websocket else { return nil }
        let settings = settings(limits: limits)
        // A link is stale when it has been as quiet as a job's socket may be before it counts as dead.
        return SharedEventSocket(api: api, staleAfter: settings.silenceTimeout, logger: logger)
    }

    /// The server's limits; nil (and defaults are used) when it cannot say.
    func limits() async -> ServiceLimits? { try? await api.limits() }

    func scan(
        image: String, slot: Int, limits: ServiceLimits?, interrupt: InterruptSignal, printEvents: Bool, command: String = "scan",
        sharedSocket: SharedEventSocket? = nil
    ) async -> ScanReport
    {
        let name = (image as NSString).lastPathComponent
        display.begin(slot, name: name)
        let preparer = ImagePreparer(longSide: limits?.recommendedLongSide ?? ImagePreparer.defaultLongSide, maxBytes: limits?.maxBytes ?? .max)
        let preference = tracking.strategy == .auto ? recorder.preference() : .ladder
        if preference != .ladder && verbose {
            let start = preference == .polling ? "its WebSocket and SSE failed recently; polling" : "its WebSocket failed recently; SSE first"
            display.message("\(image): on this network \(start), with a background WebSocket probe")
        }
        let started = ContinuousClock.now
        let log = self.recorder, screen = self.display
        let forced = interrupt.onForcedExit {
            log.record(
                Self.forcedStop(image: image, since: started), command: command, adaptive: preference, display: screen)
        }
        let mode = preference == .polling ? .polling : tracking.strategy
        let ladderStart: StreamTransport = preference == .eventStreamFirst ? .sse : .websocket
        let report = await session(mode: mode, limits: limits, ladderStart: ladderStart, sharedSocket: sharedSocket).scan(
            path: image, preparer: preparer, interrupts: { interrupt.stream() }, display: callbacks(slot: slot, image: image, printEvents: printEvents))
        // A second Ctrl-C may have recorded it already: then this never returns (the process is exiting).
        await interrupt.finishing(forced) {
            display.end(slot)
            let api = self.api
            if preference != .ladder, let jobId = report.jobId, report.outcome == .succeeded,
                probes.start(
                    { await WebSocketProbe(api: api).probe(jobId: jobId) },
                    then: { probe in
                        log.record(report, command: command, adaptive: preference, probeSucceeded: probe, display: screen)
                    })
            {
                return
            }
            recorder.record(report, command: command, adaptive: preference, display: display)
        }
        return report
    }

    /// What a run still in flight records when a second Ctrl-C ends the process.
    static func forcedStop(image: String, since started: ContinuousClock.Instant) -> ScanReport {
        var report = ScanReport(image: image, outcome: .stopped, totalSeconds: (ContinuousClock.now - started).inSeconds)
        report.error = "stopped at once (a second Ctrl-C); the job may still be running"
        return report
    }

    /// How `--verbose` names a path.
    static func name(of path: EventPath) -> String {
        switch path {
        case .websocket: "WebSocket"
        case .sse: "Server-Sent Events"
        case .polling: "polling"
        case .upload: "the upload's answer"
        }
    }

    /// Waits for the background probe in flight (its run's record is written when it ends).
    func finish() async { await probes.drain() }

    func watch(jobId: UUID, interrupt: InterruptSignal, printEvents: Bool) async -> ScanReport {
        display.begin(0, name: jobId.uuidString.lowercased())
        let started = ContinuousClock.now
        let log = self.recorder, screen = self.display
        let forced = interrupt.onForcedExit {
            var report = Self.forcedStop(image: "-", since: started)
            report.jobId = jobId
            log.record(report, command: "watch", display: screen)
        }
        let report = await session(mode: tracking.strategy).watch(
            jobId: jobId, interrupts: { interrupt.stream() }, display: callbacks(slot: 0, image: "-", printEvents: printEvents))
        await interrupt.finishing(forced) {
            display.end(0)
            recorder.record(report, command: "watch", display: display)
        }
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
                if verbose { display.message("\(image): progress now via \(Self.name(of: path))") }
            })
        return callbacks
    }
}
