import BookscanTestSupport
import FaultProxy
import Foundation
import Logging
import RunModel
import ScanClient
import ScanProtocol
import Synchronization

/// One way of following jobs: a tracker mode behind a fault proxy with a plan.
struct Scenario: Sendable {
    let name: String
    let mode: TrackerMode
    let plan: FaultPlan
    let note: String
    /// Put a `MidScanSilenceRelay` in front of the proxy: the job's socket goes silent after this
    /// many event frames (once per job; reconnects pass).
    var silentAfterEvents: Int? = nil
    /// Whether the client learns the server's heartbeat from `/v1/limits` as `bookscan` does (and so
    /// hedges a late heartbeat with one poll); false measures the silence rule alone, in the same run.
    var knowsHeartbeat = true
    /// Whether the client's `auto` ladder includes Server-Sent Events; false follows the job as a
    /// client (or server) without them does: WebSocket, then polling.
    var eventStream = true

    /// The scenarios run when `--scenarios` is not given (the ones in RESULTS-draft.md).
    static let defaultNames = ["websocket", "polling", "refused503", "silent"]

    static let all: [Scenario] = [
        Scenario(name: "websocket", mode: .auto, plan: { _ in .passThrough }, note: "--strategy auto, pass-through proxy"),
        Scenario(name: "polling", mode: .polling, plan: { _ in .passThrough }, note: "--strategy polling (2 s), pass-through proxy"),
        Scenario(
            name: "refused503", mode: .auto, plan: { $0.path.contains("/events") ? .respond(status: 503) : .passThrough },
            note: "auto, proxy answers /events with 503"),
        Scenario(
            name: "silent", mode: .auto, plan: { $0.isUpgrade ? .silentAfterResponseHead : .passThrough },
            note: "auto, proxy passes the 101 then swallows every frame"),
        Scenario(
            name: "blocked", mode: .auto, plan: { _ in .blockUpgrade },
            note: "auto, a proxy that answers every upgrade with 403 (SSE passes)"),
        Scenario(
            name: "blocked-nosse", mode: .auto, plan: { _ in .blockUpgrade },
            note: "the same network, a ladder without SSE (WebSocket → polling, as before SSE)", eventStream: false),
        Scenario(
            name: "silentmid", mode: .auto, plan: { _ in .passThrough },
            note: "auto, relay passes 5 events then swallows every frame (first socket of the job only)", silentAfterEvents: 5),
        Scenario(
            name: "silentmid-nohedge", mode: .auto, plan: { _ in .passThrough },
            note: "as silentmid, but the client does not know the heartbeat (no hedged poll: the 5 s silence rule alone)",
            silentAfterEvents: 5, knowsHeartbeat: false),
    ]
}

/// What the display saw for one job: every accepted event with the wall-clock time it arrived.
final class JobLog: Sendable {
    struct Entry: Sendable {
        var received: Date
        var event: JobEvent
        var path: EventPath
    }
    private let entries = Mutex<[Entry]>([])

    func record(_ event: JobEvent, _ path: EventPath) {
        let now = Date()
        entries.withLock { $0.append(Entry(received: now, event: event, path: path)) }
    }

    var all: [Entry] { entries.withLock { $0 } }
}

/// The outcome of one tracked job.
struct JobOutcome: Sendable {
    var scenario: String
    var jobId: UUID
    var strategy: String
    var ended: String
    var uploadSeconds: Double?
    var firstEventSeconds: Double?
    var totalSeconds: Double
    /// Server emit → client callback, milliseconds, for every event not carried by the upload response.
    var latencies: [Double]
    /// Largest gap between consecutive displayed (non-upload) events, seconds.
    var maxGapSeconds: Double?
    var eventsShown: Int
    var finalSeq: Int
    /// Connections the proxy saw for this job, by kind (`PUT`, `GET`, `upgrade`).
    var requests: [String: Int]
    /// Mid-scan silence: seconds from the socket going silent to the next shown event, and its path.
    var silenceToNextSeconds: Double?
    var silenceRecoveredBy: String?
    /// Polls the tracker sent because a heartbeat was late.
    var hedgedPolls = 0
    var requestTotal: Int { requests.values.reduce(0, +) }
}

/// Follows one job with the real client (`ProgressTracker` + `ScanAPI` over libcurl and WSClient).
func runJob(scenario: Scenario, baseURL: String, jpeg: [UInt8], timeout: Duration) async -> (UUID, JobLog, Result<TrackedRun, ProgressTracker.UploadFailed>) {
    let logger = Logger.quiet("bench.client")
    let api = ScanAPI(baseURL: baseURL, token: nil, http: CurlHTTPClient())
    var settings = TrackerSettings()
    if scenario.knowsHeartbeat, let limits = try? await api.limits() { settings = settings.adapted(toHeartbeat: limits.heartbeatSeconds) }
    let tracker = ProgressTracker(
        api: api, mode: scenario.mode, settings: settings, logger: logger, eventStreamAvailable: scenario.eventStream)
    let jobId = UUID()
    let log = JobLog()
    let observer = TrackerObserver(event: { event, path, _ in log.record(event, path) })
    do throws(ProgressTracker.UploadFailed) {
        let run = try await tracker.run(
            jobId: jobId,
            upload: {
                do throws(ScanAPIError) { return .success(try await api.upload(jobId: jobId, jpeg: jpeg)) } catch { return .failure(error) }
            }, timeout: timeout, observer: observer)
        return (jobId, log, .success(run))
    } catch {
        return (jobId, log, .failure(error))
    }
}

/// The HTTP requests the service served (method, path), as its request observer reports them.
final class ServedRequests: Sendable {
    private let entries = Mutex<[(method: String, path: String)]>([])
    func record(_ method: String, _ path: String) { entries.withLock { $0.append((method, path)) } }
    var all: [(method: String, path: String)] { entries.withLock { $0 } }
}

/// Turns a finished job, the proxy's log and the service's requests into numbers. Requests per job:
/// every upgrade the proxy saw (a refused one never reaches the service), every request the proxy
/// answered itself, plus every HTTP request the service served for the job (`GET events`: event
/// streams and the probes of refused upgrades).
func summarize(
    scenario: Scenario, jobId: UUID, log: JobLog, result: Result<TrackedRun, ProgressTracker.UploadFailed>,
    proxied: [(ProxiedRequest, ConnectionFault)], served: [(method: String, path: String)], silence: MidScanSilenceRelay.Silence? = nil
) -> JobOutcome {
    let key = jobId.uuidString.lowercased()
    var requests: [String: Int] = [:]
    for (request, fault) in proxied where request.path.contains(key) {
        switch fault {
        case _ where request.isUpgrade: requests["upgrade", default: 0] += 1
        case .respond, .respondAfter:
            // Answered by the proxy itself: the service never saw it.
            requests["\(request.method) refused by proxy", default: 0] += 1
        default: break
        }
    }
    for request in served where request.path.lowercased().contains(key) {
        requests[request.path.hasSuffix("/" + Routes.eventsSuffix) ? "\(request.method) events" : request.method, default: 0] += 1
    }
    let shown = log.all.filter { $0.path != .upload }
    let latencies = shown.map { $0.received.timeIntervalSince($0.event.timestamp) * 1000 }
    let gaps = zip(shown, shown.dropFirst()).map { $1.received.timeIntervalSince($0.received) }
    var outcome = JobOutcome(
        scenario: scenario.name, jobId: jobId, strategy: "-", ended: "upload failed", uploadSeconds: nil, firstEventSeconds: nil,
        totalSeconds: 0, latencies: latencies, maxGapSeconds: gaps.max(), eventsShown: shown.count,
        finalSeq: log.all.map(\.event.seq).max() ?? 0, requests: requests)
    if let silence, let next = shown.first(where: { $0.event.seq > silence.lastSeq }) {
        outcome.silenceToNextSeconds = next.received.timeIntervalSince(silence.at)
        outcome.silenceRecoveredBy = "\(next.path)"
    }
    switch result {
    case .success(let run):
        outcome.strategy = run.strategy?.name.rawValue ?? "none"
        if case .pollingFallback(let reason, let status, let phase, let from) = run.strategy {
            outcome.strategy += "(from \(from.rawValue): \(reason.rawValue)\(status.map { " \($0)" } ?? ""), \(phase.rawValue))"
        }
        outcome.ended =
            switch run.ending {
            case .terminal(let event): event.state.rawValue
            case .timedOut: "timed out"
            case .interrupted: "interrupted"
            case .jobLost: "job lost"
            case .unauthorized(let status): "unauthorized \(status)"
            case .socketUnavailable(let reason): "socket unavailable \(reason.rawValue)"
            }
        outcome.hedgedPolls = run.metrics.hedgedPolls
        outcome.uploadSeconds = run.uploadSeconds
        outcome.firstEventSeconds = run.firstEventSeconds
        outcome.totalSeconds = run.totalSeconds
    case .failure(let error):
        outcome.ended = "upload failed: \(error.error)"
        outcome.totalSeconds = error.seconds
    }
    return outcome
}

// MARK: statistics

func percentile(_ values: [Double], _ p: Double) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let rank = p * Double(sorted.count - 1)
    let lo = Int(rank.rounded(.down)), hi = Int(rank.rounded(.up))
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - Double(lo))
}

func median(_ values: [Double]) -> Double? { percentile(values, 0.5) }

func fmt(_ value: Double?, _ digits: Int = 1) -> String {
    guard let value else { return "–" }
    return String(format: "%.\(digits)f", value)
}
