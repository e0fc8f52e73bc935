import Foundation
import ImagePreparation
import Logging
import ScanClient
import ScanProtocol

/// Wires one command's images through `ScanSession` with the display and `--events` output.
struct ScanRunner: Sendable {
    let api: ScanAPI
    let session: ScanSession
    let display: ProgressDisplay
    let verbose: Bool

    init(endpoint: ServiceEndpoint, tracking: TrackingOptions, display: ProgressDisplay, verbose: Bool) {
        var logger = Logger(label: "bookscan")
        logger.logLevel = .critical
        let http = CurlHTTPClient(configuration: .init(caCertificatePath: tracking.caCertificate))
        api = ScanAPI(baseURL: endpoint.baseURL, token: endpoint.token, http: http)
        let tracker = ProgressTracker(api: api, mode: tracking.strategy, settings: tracking.trackerSettings, logger: logger)
        session = ScanSession(api: api, tracker: tracker, timeout: tracking.timeout.duration)
        self.display = display
        self.verbose = verbose
    }

    /// The server's limits; nil (and defaults are used) when it cannot say.
    func limits() async -> ServiceLimits? { try? await api.limits() }

    func scan(image: String, slot: Int, limits: ServiceLimits?, interrupts: AsyncStream<Void>, printEvents: Bool) async -> ScanReport {
        let name = (image as NSString).lastPathComponent
        display.begin(slot, name: name)
        let preparer = ImagePreparer(longSide: limits?.recommendedLongSide ?? 1920, maxSourcePixels: 250_000_000)
        let report = await session.scan(path: image, preparer: preparer, interrupts: interrupts, display: callbacks(slot: slot, image: image, printEvents: printEvents))
        display.end(slot)
        return report
    }

    func watch(jobId: UUID, interrupts: AsyncStream<Void>, printEvents: Bool) async -> ScanReport {
        display.begin(0, name: jobId.uuidString.lowercased())
        let report = await session.watch(jobId: jobId, interrupts: interrupts, display: callbacks(slot: 0, image: "-", printEvents: printEvents))
        display.end(0)
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
            display.message("\(image): upload failed (\(error)); retry \(attempt) in \(String(format: "%.1f", delay.seconds)) s")
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

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
