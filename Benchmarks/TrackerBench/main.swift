// TrackerBench: client progress tracking against a real in-process scan service.
//
//   TrackerBench [--jobs 5] [--scan-seconds 30] [--scenarios websocket,polling,refused503,silent[,silentmid,blocked,blocked-nosse]] [--stagger 0.3] [--details]
//
// `blocked` / `blocked-nosse`: a proxy that refuses every upgrade (403), followed with the ladder's
// event stream, and the same network followed by a ladder without it (polling), in the same run.
//
// `silentmid` (not run by default) puts MidScanSilenceRelay in front of a pass-through proxy: the
// job's first socket goes silent after 5 event frames.
//
// Starts EmbeddedScanService on loopback (default settings: heartbeat 2 s), calibrates how many
// progress events one scan of a small synthetic shelf publishes, then sets FaultSeams.scanStepDelay
// so each scan lasts about --scan-seconds. Every scenario gets its own FaultProxy in front of the
// service; all jobs of all scenarios run at the same time (staggered starts), so the scenarios are
// peers measured under the same machine load. Each job is followed by the real client
// (ProgressTracker + ScanAPI: libcurl + WSClient) with default TrackerSettings.
import BookscanTestSupport
import FaultProxy
import Foundation

import Logging
import ScanClient
import ScanProtocol
import ScanService

struct Options {
    var jobs = 5
    var scanSeconds = 30.0
    var scenarios = Scenario.defaultNames
    var stagger = 0.3
    var details = false

    static func parse(_ arguments: [String]) -> Result<Options, UsageError> {
        var options = Options()
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--details": options.details = true
            case "--jobs", "--scan-seconds", "--stagger", "--scenarios":
                guard let value = iterator.next() else { return .failure(UsageError("missing value for \(argument)")) }
                switch argument {
                case "--jobs":
                    guard let n = Int(value), (1...50).contains(n) else { return .failure(UsageError("--jobs must be 1…50")) }
                    options.jobs = n
                case "--scan-seconds":
                    guard let s = Double(value), (1...300).contains(s) else { return .failure(UsageError("--scan-seconds must be 1…300")) }
                    options.scanSeconds = s
                case "--stagger":
                    guard let s = Double(value), (0...10).contains(s) else { return .failure(UsageError("--stagger must be 0…10")) }
                    options.stagger = s
                default:
                    let names = value.split(separator: ",").map(String.init)
                    let known = Set(Scenario.all.map(\.name))
                    guard !names.isEmpty, names.allSatisfy(known.contains) else {
                        return .failure(UsageError("--scenarios: choose from \(known.sorted().joined(separator: ","))"))
                    }
                    options.scenarios = names
                }
            default: return .failure(UsageError("unknown argument \(argument)"))
            }
        }
        return .success(options)
    }
}

struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

func say(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

func run(_ options: Options) async throws -> Int32 {
    let jpeg = try SyntheticShelf.jpeg(books: 10)
    let scenarios = Scenario.all.filter { options.scenarios.contains($0.name) }

    // 1. Calibrate: how many events does one scan publish?
    let calibration = try await EmbeddedScanService.startQuietly()
    let probe = Scenario(name: "calibrate", mode: .auto, plan: { _ in .passThrough }, note: "")
    let (_, probeLog, _) = await runJob(scenario: probe, baseURL: calibration.baseURL, jpeg: jpeg, timeout: .seconds(60))
    await calibration.stop()
    let steps = max(1, probeLog.all.map(\.event.seq).max() ?? 1)
    let delayMilliseconds = Int64((options.scanSeconds / Double(steps) * 1000).rounded())
    say("calibration: one scan publishes \(steps) events → scanStepDelay \(delayMilliseconds) ms (target \(options.scanSeconds) s)")

    // 2. The service under test, one proxy per scenario.
    // Every HTTP request the service serves, so requests on kept-alive connections are counted too
    // (the proxy sees each connection's first request only); upgrades are counted by the proxy.
    let served = ServedRequests()
    let configuration = ServiceConfiguration(workers: options.jobs * scenarios.count + 2).injecting(
        FaultSeams(scanStepDelay: .milliseconds(delayMilliseconds), observeRequest: { method, path, refusedUpgrade in
            // A refused upgrade the service answered is already counted as an upgrade by the proxy.
            if !refusedUpgrade { served.record(method, path) }
        }))
    let service = try await EmbeddedScanService.startQuietly(configuration)
    var proxies: [FaultProxy] = []
    var relays: [MidScanSilenceRelay?] = []
    for scenario in scenarios {
        let proxy = try await FaultProxy.start(upstreamPort: service.port, plan: scenario.plan)
        proxies.append(proxy)
        relays.append(try scenario.silentAfterEvents.map { try MidScanSilenceRelay(upstreamPort: proxy.port, silentAfterEvents: $0) })
    }
    let timeout = Duration.seconds(options.scanSeconds * 3 + 30)
    say("running \(options.jobs) jobs × \(scenarios.count) scenarios at once (timeout \(timeout) each)…")

    let outcomes = await withTaskGroup(of: JobOutcome.self) { group in
        var index = 0
        for _ in 0..<options.jobs {
            for (scenario, (proxy, relay)) in zip(scenarios, zip(proxies, relays)) {
                let delay = Duration.milliseconds(Int64(Double(index) * options.stagger * 1000))
                index += 1
                group.addTask {
                    try? await Task.sleep(for: delay)
                    let (jobId, log, result) = await runJob(scenario: scenario, baseURL: relay?.baseURL ?? proxy.baseURL, jpeg: jpeg, timeout: timeout)
                    return summarize(
                        scenario: scenario, jobId: jobId, log: log, result: result, proxied: proxy.requests, served: served.all,
                        silence: relay?.silenced[jobId.uuidString.lowercased()])
                }
            }
        }
        var all: [JobOutcome] = []
        for await outcome in group { all.append(outcome) }
        return all
    }
    for relay in relays { relay?.stop() }
    for proxy in proxies { await proxy.stop() }
    await service.stop()

    report(options: options, scenarios: scenarios, outcomes: outcomes, steps: steps, delayMilliseconds: delayMilliseconds)
    return outcomes.allSatisfy { $0.ended == "succeeded" } ? 0 : 1
}

func report(options: Options, scenarios: [Scenario], outcomes: [JobOutcome], steps: Int, delayMilliseconds: Int64) {
    print("TrackerBench: \(options.jobs) jobs per scenario, all concurrent; \(steps) events per scan × \(delayMilliseconds) ms step delay")
    print("default TrackerSettings (poll 2 s, first-frame deadline 2.5 s, silence 5 s); server heartbeat 2 s\n")
    print("| scenario | how | strategy (runs) | ended | events shown (median) | latency p50 ms | latency p99 ms | first non-upload event s (median / max) | max gap between shown events s (median / max) | HTTP requests per job (median, min–max) | by kind (median job) | job s (median) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    var byName: [String: [JobOutcome]] = [:]
    for scenario in scenarios {
        let jobs = outcomes.filter { $0.scenario == scenario.name }.sorted { $0.requestTotal < $1.requestTotal }
        byName[scenario.name] = jobs
        let strategies = Dictionary(grouping: jobs, by: \.strategy).map { "\($0.key) ×\($0.value.count)" }.sorted().joined(separator: "; ")
        let ended = Dictionary(grouping: jobs, by: \.ended).map { "\($0.key) ×\($0.value.count)" }.sorted().joined(separator: "; ")
        let latencies = jobs.flatMap(\.latencies)
        let firsts = jobs.compactMap(\.firstEventSeconds)
        let gaps = jobs.compactMap(\.maxGapSeconds)
        let requests = jobs.map { Double($0.requestTotal) }
        let middle = jobs.isEmpty ? nil : jobs[jobs.count / 2]
        let kinds = middle.map { $0.requests.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") } ?? "–"
        print(
            "| \(scenario.name) | \(scenario.note) | \(strategies) | \(ended) | \(fmt(median(jobs.map { Double($0.eventsShown) }), 0)) | "
                + "\(fmt(percentile(latencies, 0.5))) | \(fmt(percentile(latencies, 0.99))) | \(fmt(median(firsts), 2)) / \(fmt(firsts.max(), 2)) | "
                + "\(fmt(median(gaps), 2)) / \(fmt(gaps.max(), 2)) | \(fmt(median(requests), 0)) (\(fmt(requests.min(), 0))–\(fmt(requests.max(), 0))) | "
                + "\(kinds) | \(fmt(median(jobs.map(\.totalSeconds)), 1)) |")
    }
    print("\n| goal | measured | peer / ratio |")
    print("|---|---|---|")
    if let ws = byName["websocket"], let poll = byName["polling"] {
        let w50 = percentile(ws.flatMap(\.latencies), 0.5), p50 = percentile(poll.flatMap(\.latencies), 0.5)
        let w99 = percentile(ws.flatMap(\.latencies), 0.99), p99 = percentile(poll.flatMap(\.latencies), 0.99)
        let ratio = { (a: Double?, b: Double?) -> String in
            guard let a, let b, a > 0 else { return "–" }
            return String(format: "%.0f×", b / a)
        }
        print("| (a) progress latency, WebSocket vs polling | ws p50 \(fmt(w50)) ms, p99 \(fmt(w99)) ms | polling p50 \(fmt(p50)) ms (\(ratio(w50, p50)) slower), p99 \(fmt(p99)) ms (\(ratio(w99, p99))) |")
        let wr = median(ws.map { Double($0.requestTotal) }), pr = median(poll.map { Double($0.requestTotal) })
        print("| (d) HTTP requests per job ≤ 3 on the WebSocket path | ws median \(fmt(wr, 0)), max \(fmt(ws.map { Double($0.requestTotal) }.max(), 0)) | polling median \(fmt(pr, 0)) (\(wr.flatMap { w in pr.map { String(format: "%.0f×", $0 / max(w, 1)) } } ?? "–")) |")
    }
    if let sse = byName["blocked"], let poll = byName["blocked-nosse"] {
        // Upgrades blocked: the event stream vs what the same network paid before SSE (polling), same run.
        let s50 = percentile(sse.flatMap(\.latencies), 0.5), s99 = percentile(sse.flatMap(\.latencies), 0.99)
        let p50 = percentile(poll.flatMap(\.latencies), 0.5), p99 = percentile(poll.flatMap(\.latencies), 0.99)
        let sr = median(sse.map { Double($0.requestTotal) }), pr = median(poll.map { Double($0.requestTotal) })
        let times = { (a: Double?, b: Double?) -> String in
            guard let a, let b, a > 0 else { return "–" }
            return String(format: "%.0f×", b / a)
        }
        print("| (g) upgrades blocked: SSE latency, goal p50 ≤ 5 ms | sse p50 \(fmt(s50)) ms, p99 \(fmt(s99)) ms | without SSE (polling) p50 \(fmt(p50)) ms (\(times(s50, p50)) slower), p99 \(fmt(p99)) ms (\(times(s99, p99))) |")
        print("| (h) upgrades blocked: HTTP requests per job, goal ≤ 3 | sse median \(fmt(sr, 0)), max \(fmt(sse.map { Double($0.requestTotal) }.max(), 0)) | without SSE median \(fmt(pr, 0)) (\(times(sr, pr))) |")
    }
    if let refused = byName["refused503"] {
        let firsts = refused.compactMap(\.firstEventSeconds)
        print("| (b) first shown progress ≤ 1 s when the upgrade gets 503 | median \(fmt(median(firsts), 2)) s, max \(fmt(firsts.max(), 2)) s | – |")
    }
    if let silent = byName["silent"] {
        let firsts = silent.compactMap(\.firstEventSeconds), gaps = silent.compactMap(\.maxGapSeconds)
        print("| (c) next shown update ≤ 6 s after the socket goes silent | upload accepted → first polled event: median \(fmt(median(firsts), 2)) s, max \(fmt(firsts.max(), 2)) s | largest gap between shown events: median \(fmt(median(gaps), 2)) s, max \(fmt(gaps.max(), 2)) s |")
    }
    for name in ["silentmid", "silentmid-nohedge"] {
        guard let mid = byName[name] else { continue }
        let recoveries = mid.compactMap(\.silenceToNextSeconds), gaps = mid.compactMap(\.maxGapSeconds)
        let by = Dictionary(grouping: mid.compactMap(\.silenceRecoveredBy), by: { $0 }).map { "\($0.key) ×\($0.value.count)" }.sorted().joined(separator: "; ")
        print("| (c′) \(name): next shown update after the socket goes silent MID-scan (after 5 events); goal ≤ 2.5 s | silence → next shown event: median \(fmt(median(recoveries), 2)) s, max \(fmt(recoveries.max(), 2)) s (\(recoveries.count)/\(mid.count) jobs went silent; next event via \(by)) | largest gap between shown events: median \(fmt(median(gaps), 2)) s, max \(fmt(gaps.max(), 2)) s |")
    }
    if let hedged = byName["silentmid"].map({ median($0.compactMap(\.silenceToNextSeconds)) }) ?? nil,
        let plain = byName["silentmid-nohedge"].map({ median($0.compactMap(\.silenceToNextSeconds)) }) ?? nil, hedged > 0
    {
        print("| (e) hedged poll on a late heartbeat vs the silence rule alone (same run) | median \(fmt(hedged, 2)) s | silence rule \(fmt(plain, 2)) s (\(String(format: "%.1f×", plain / hedged)) slower) |")
    }
    if let ws = byName["websocket"] {
        let hedges = ws.map(\.hedgedPolls).reduce(0, +)
        print("| (f) a healthy socket costs no extra request | hedged polls on the healthy WebSocket: \(hedges) in \(ws.count) jobs; GET per job median \(fmt(median(ws.map { Double($0.requests["GET"] ?? 0) }), 0)) | – |")
    }
    if options.details {
        print("\n| scenario | job | strategy | ended | events | first s | max gap s | requests | latency p50/p99 ms | silence → next s |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for job in outcomes.sorted(by: { ($0.scenario, $0.totalSeconds) < ($1.scenario, $1.totalSeconds) }) {
            print(
                "| \(job.scenario) | \(job.jobId.uuidString.prefix(8)) | \(job.strategy) | \(job.ended) | \(job.eventsShown) (seq \(job.finalSeq)) | "
                    + "\(fmt(job.firstEventSeconds, 2)) | \(fmt(job.maxGapSeconds, 2)) | \(job.requests.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")) | "
                    + "\(fmt(percentile(job.latencies, 0.5))) / \(fmt(percentile(job.latencies, 0.99))) | "
                    + "\(job.silenceToNextSeconds.map { "\(fmt($0, 2)) (\(job.silenceRecoveredBy ?? "?"))" } ?? "–") |")
        }
    }
}

switch Options.parse(Array(CommandLine.arguments.dropFirst())) {
case .failure(let error):
    say("TrackerBench: \(error.message)")
    say("usage: TrackerBench [--jobs 5] [--scan-seconds 30] [--scenarios websocket,polling,refused503,silent[,silentmid]] [--stagger 0.3] [--details]")
    exit(64)
case .success(let options):
    do {
        exit(try await run(options))
    } catch {
        say("TrackerBench: \(error)")
        exit(2)
    }
}
