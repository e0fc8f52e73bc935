import Foundation
package import ScanClient

/// How a campaign runs: how many jobs, which seed, how many at once, and the timings of the
/// client and of the in-process service behind the proxy.
package struct CampaignConfiguration: Sendable {
    package var jobs: Int
    package var seed: UInt64
    /// Jobs in flight at once.
    package var concurrency: Int
    /// JPEG files to scan (each job picks one at random).
    package var images: [String]
    /// Long side images are prepared to before upload.
    package var longSide: Int
    /// The tracker's timings: short, so faults are noticed quickly, but with room for a loaded machine.
    package var tracker: TrackerSettings
    /// Server heartbeat interval (well inside the silence timeout).
    package var heartbeat: Duration
    /// The service sleeps this long after each progress event, so a job lasts long enough to disturb.
    package var scanStepDelay: Duration
    /// Scans the service runs at once (they mostly sleep between progress steps).
    package var workers: Int
    /// Most events a socket fault lets through first.
    package var maxEventsBeforeFault: Int
    /// The fault kinds drawn (all by default).
    package var kinds: [FaultKind] = FaultKind.allCases
    /// A job not finished by then counts as failed (`timed_out`).
    package var jobTimeout: Duration
    /// The analytics log the jobs append to; a fresh temporary file when nil.
    package var analyticsLog: String?

    package init(
        jobs: Int, seed: UInt64, concurrency: Int = 12, images: [String], longSide: Int = 320,
        tracker: TrackerSettings = CampaignConfiguration.trackerSettings, heartbeat: Duration = .milliseconds(200),
        scanStepDelay: Duration = CampaignConfiguration.defaultScanStepDelay, workers: Int = 24, maxEventsBeforeFault: Int = 3, jobTimeout: Duration = .seconds(90),
        analyticsLog: String? = nil
    ) {
        self.jobs = jobs
        self.seed = seed
        self.concurrency = max(1, concurrency)
        self.images = images
        self.longSide = longSide
        self.tracker = tracker
        self.heartbeat = heartbeat
        self.scanStepDelay = scanStepDelay
        self.workers = workers
        self.maxEventsBeforeFault = maxEventsBeforeFault
        self.jobTimeout = jobTimeout
        self.analyticsLog = analyticsLog
    }

    /// The service's pause after each progress event: a job of 14–21 events lasts 8–13 s, longer than
    /// the ladder's two deadlines back to back (the WebSocket's first frame, then the event stream's
    /// first byte: 3 s each), so a buffering proxy is caught before the job ends even on a loaded
    /// machine. At 400 ms a 6 s job sometimes ended first on CI, its buffered stream then arriving
    /// whole and carrying the job.
    package static let defaultScanStepDelay: Duration = .milliseconds(600)

    /// Fast tracker timings with room for a loaded 2-core machine: 250 ms polls, 3 s to a first
    /// frame, 2 s of silence (10 missed heartbeats) is dead.
    package static let trackerSettings = TrackerSettings(
        pollInterval: .milliseconds(250), firstFrameDeadline: .seconds(3), socketGiveUp: .seconds(6), silenceTimeout: .seconds(2),
        maxSocketFailures: 5, backoffBase: .milliseconds(100), backoffCap: .milliseconds(500))

    /// The client's own default timings (what `bookscan` follows jobs with), to measure the product
    /// rather than the campaign's fast settings.
    package static let productTrackerSettings = TrackerSettings()

    /// The `.jpg` files of a folder, sorted.
    package static func images(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.lowercased().hasSuffix(".jpg") }.sorted().map { (directory as NSString).appendingPathComponent($0) }
    }
}
