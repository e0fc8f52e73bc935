// ServerBench: how many events subscribers one `bookscan serve` holds, at what memory, and with
// what server-emit → client-receive latency.
//
//   ServerBench --serve PATH/bookscan --image SMALL.jpg [--phases 100x1,1000x1,1000x10] [--step-delay 0.5]
//               [--heartbeat 2] [--batch 500] [--hold 20] [--port 18480] [--upload-width 16]
//
// Each phase JOBSxSUBS starts a fresh `bookscan serve --workers JOBS --queue JOBS --scan-step-delay D`,
// submits JOBS jobs (PUT of the same small JPEG under fresh UUIDs, libcurl), opens SUBS WebSocket
// subscribers per job (WSClient, hello first) in batches, holds them for --hold seconds and stops.
// Latency is the receive time minus the event's own timestamp (same machine clock, ms resolution),
// for live events only (replayed ones are counted apart); "ramp" while subscribers are still being
// opened, "steady" once all were attempted. Client and server share the machine's cores.
import BookscanBase
import Synchronization
import Foundation
import Logging
import ScanClient
import ScanProtocol

struct Phase: Sendable, CustomStringConvertible {
    var jobs: Int
    var subscribersPerJob: Int
    var description: String { "\(jobs)x\(subscribersPerJob)" }
}

struct Options {
    var serve = ".build-bench/release/bookscan"
    var image = ""
    var phases = [Phase(jobs: 100, subscribersPerJob: 1), Phase(jobs: 1000, subscribersPerJob: 1), Phase(jobs: 1000, subscribersPerJob: 10)]
    var stepDelay = 0.5
    var heartbeat = 2.0
    var batch = 500
    var hold = 20.0
    var port = 18480
    var uploadWidth = 16
    /// Stop a phase early when the server's RSS passes this (the machine is shared).
    var maxRSSMiB = 8000
    /// `--workers` of the server; 0 means one per job (every job running at once).
    var workers = 0
    /// `--database URL`: the instances keep jobs in this PostgreSQL database (else in memory).
    var database: String?
    /// `--instances N`: instances on the database per phase; uploads go to the first, subscribers
    /// are spread over all of them round-robin.
    var instances = 1
    /// `--throughput JOBS`: instead of the phases, jobs/s with the zero-cost engine for one in-memory
    /// instance and 1, 2, 3 instances on `--database`, in that order.
    var throughputJobs: Int?
    /// `--engine instant`: the zero-cost scan (`serve --instant-scan`) with the step delay after each
    /// stage, so jobs stay in flight without the engine's CPU (`real`, the default: the scan engine).
    var instantEngine = false

    static func parse(_ arguments: [String]) -> Result<Options, UsageError> {
        var options = Options()
        var iterator = arguments.makeIterator()
        while let name = iterator.next() {
            guard let value = iterator.next() else { return .failure(UsageError("missing value for \(name)")) }
            switch name {
            case "--serve": options.serve = value
            case "--image": options.image = value
            case "--phases":
                var phases: [Phase] = []
                for item in value.split(separator: ",") {
                    let parts = item.split(separator: "x")
                    guard parts.count == 2, let jobs = Int(parts[0]), let subs = Int(parts[1]), (1...5000).contains(jobs), (1...32).contains(subs),
                        jobs * subs <= 15_000
                    else { return .failure(UsageError("--phases: JOBSxSUBS items, jobs 1…5000, subs 1…32, product ≤ 15000")) }
                    phases.append(Phase(jobs: jobs, subscribersPerJob: subs))
                }
                options.phases = phases
            case "--step-delay", "--heartbeat", "--hold":
                guard let number = Double(value), number > 0, number <= 600 else { return .failure(UsageError("\(name) must be 0…600")) }
                if name == "--step-delay" { options.stepDelay = number }
                if name == "--heartbeat" { options.heartbeat = number }
                if name == "--hold" { options.hold = number }
            case "--workers":
                guard let number = Int(value), number >= 0 else { return .failure(UsageError("--workers must be ≥ 0")) }
                options.workers = number
            case "--database": options.database = value
            case "--engine":
                guard ["instant", "real"].contains(value) else { return .failure(UsageError("--engine must be instant or real")) }
                options.instantEngine = value == "instant"
            case "--instances":
                guard let number = Int(value), (1...8).contains(number) else { return .failure(UsageError("--instances must be 1…8")) }
                options.instances = number
            case "--throughput":
                guard let number = Int(value), (1...100_000).contains(number) else { return .failure(UsageError("--throughput must be 1…100000")) }
                options.throughputJobs = number
            case "--max-rss-mib":
                guard let number = Int(value), number > 0 else { return .failure(UsageError("--max-rss-mib must be positive")) }
                options.maxRSSMiB = number
            case "--batch", "--port", "--upload-width":
                guard let number = Int(value), number > 0, number <= 65535 else { return .failure(UsageError("\(name) must be 1…65535")) }
                if name == "--batch" { options.batch = number }
                if name == "--port" { options.port = number }
                if name == "--upload-width" { options.uploadWidth = min(64, number) }
            default: return .failure(UsageError("unknown option \(name)"))
            }
        }
        if options.image.isEmpty { return .failure(UsageError("--image SMALL.jpg is required")) }
        return .success(options)
    }
}

struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

struct PhaseResult {
    var phase: Phase
    var accepted = 0
    var uploadSeconds = 0.0
    var rampSeconds = 0.0
    var heldAfterRamp = 0
    var minHeldDuringHold = 0
    var failed = 0
    var failures: [String: Int] = [:]
    var idle = ProcessMemory()
    var withJobs = ProcessMemory()
    var withSubscribers = ProcessMemory()
    var rampP50: Double?, rampP99: Double?, steadyP50: Double?, steadyP99: Double?
    var steadyEvents = 0
    var liveEvents = 0
    var replayed = 0
    var negative = 0
    var serverCPU: Double?
    var clientCPU = 0.0
    var jobsRunningAtEnd: Int?
    var abortedForRSS = false
}

func say(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

func fmt(_ value: Double?, _ digits: Int = 1) -> String { value.map { String(format: "%.\(digits)f", $0) } ?? "–" }

func health(_ baseURL: String) async -> HealthStatus? {
    guard let response = try? await CurlHTTPClient().send(HTTPRequestData(method: "GET", url: baseURL + Routes.health)) else { return nil }
    return try? WireCoding.decode(HealthStatus.self, from: Data(response.body))
}

func runPhase(_ phase: Phase, index: Int, options: Options, jpeg: [UInt8]) async throws -> PhaseResult {
    var result = PhaseResult(phase: phase)
    var servers: [ServerProcess] = []
    for instance in 0..<(options.database == nil ? 1 : options.instances) {
        let extra =
            (options.database.map { ["--database", $0, "--instance", "bench-\(index)-\(instance)"] } ?? [])
            + (options.instantEngine ? ["--instant-scan"] : [])
        servers.append(
            try ServerProcess(
                binary: options.serve, port: options.port + index * 10 + instance, jobs: phase.jobs,
                workers: options.workers > 0 ? options.workers : phase.jobs, stepDelay: options.stepDelay, heartbeat: options.heartbeat,
                extra: extra))
    }
    let server = servers[0]
    for instance in servers {
        guard await instance.waitUntilReady(within: .seconds(30)) else {
            for started in servers { await started.stop() }
            throw UsageError("bookscan serve did not become ready on port \(instance.port)")
        }
    }
    result.idle = server.memory()
    let clock = ContinuousClock()

    // 1. Jobs.
    let api = ScanAPI(baseURL: server.baseURL, token: nil, http: CurlHTTPClient(), uploadRetry: RetryPolicy(delays: [.zero], jitter: .zero))
    let ids = (0..<phase.jobs).map { _ in UUID() }
    let accepted = SubscriberStats()
    var started = clock.now
    await forEachConcurrently(ids, width: options.uploadWidth) { id in
        do throws(ScanAPIError) {
            _ = try await api.upload(jobId: id, jpeg: jpeg)
            accepted.opened.add(1, ordering: .relaxed)
        } catch {
            accepted.fail("upload: \(error)")
        }
    }
    result.uploadSeconds = (clock.now - started).inSeconds
    result.accepted = accepted.opened.load(ordering: .relaxed)
    result.failures = accepted.failureReasons
    result.withJobs = server.memory()
    say("  \(phase): \(result.accepted)/\(phase.jobs) jobs accepted in \(fmt(result.uploadSeconds, 1)) s; RSS \(fmt(result.withJobs.rssMiB)) MiB")

    // 2. Subscribers, in batches; then hold.
    let wsLogger: Logger = {
        var logger = Logger(label: "bench.ws")
        logger.logLevel = .critical
        return logger
    }()
    let stats = SubscriberStats()
    // Subscribers round-robin over the instances (on a database, an event reaches every one of them
    // the same way: written by the worker's instance, NOTIFY, read back by the subscriber's instance).
    let apis = servers.map { ScanAPI(baseURL: $0.baseURL, token: nil, http: CurlHTTPClient(), uploadRetry: RetryPolicy(delays: [.zero], jitter: .zero)) }
    let urls = (0..<phase.subscribersPerJob).flatMap { round in
        ids.enumerated().map { offset, id in apis[(offset + round) % apis.count].eventsURL(jobId: id, after: 0) }
    }
    await withTaskGroup(of: Void.self) { group in
        started = clock.now
        var next = 0
        while next < urls.count, !stats.stop.load(ordering: .relaxed) {
            let end = min(urls.count, next + options.batch)
            for url in urls[next..<end] { group.addTask { await subscribe(url: url, stats: stats, logger: wsLogger) } }
            next = end
            let deadline = clock.now + .seconds(20)
            while clock.now < deadline, stats.opened.load(ordering: .relaxed) + stats.failed.load(ordering: .relaxed) < next {
                try? await Task.sleep(for: .milliseconds(20))
            }
            if servers.contains(where: { ($0.memory().rssMiB ?? 0) > Double(options.maxRSSMiB) }) {
                result.abortedForRSS = true
                stats.stop.store(true, ordering: .relaxed)
            }
            say("  \(phase): \(stats.open) open, \(stats.failed.load(ordering: .relaxed)) failed after \(next) attempts; server RSS \(fmt(server.memory().rssMiB)) MiB")
        }
        result.rampSeconds = (clock.now - started).inSeconds
        result.heldAfterRamp = stats.open
        stats.steady.store(true, ordering: .relaxed)
        let serverCPU0 = servers.compactMap { $0.cpuSeconds() }.reduce(0, +), clientCPU0 = ownCPUSeconds()
        let steadyEvents0 = stats.liveEvents.load(ordering: .relaxed)
        let holdStart = clock.now
        var minimum = stats.open
        var peak = server.memory()
        while clock.now - holdStart < .seconds(options.hold), !result.abortedForRSS {
            try? await Task.sleep(for: .milliseconds(500))
            minimum = min(minimum, stats.open)
            let now = servers.map { $0.memory() }.max { ($0.rssMiB ?? 0) < ($1.rssMiB ?? 0) } ?? server.memory()
            if (now.rssMiB ?? 0) > (peak.rssMiB ?? 0) { peak = now }
            if (now.rssMiB ?? 0) > Double(options.maxRSSMiB) { result.abortedForRSS = true }
        }
        let holdSeconds = (clock.now - holdStart).inSeconds
        result.minHeldDuringHold = minimum
        result.withSubscribers = peak
        result.withSubscribers.peakMiB = servers.compactMap { $0.memory().peakMiB }.max()
        result.steadyEvents = stats.liveEvents.load(ordering: .relaxed) - steadyEvents0
        let serverCPU1 = servers.compactMap { $0.cpuSeconds() }.reduce(0, +)
        result.serverCPU = (serverCPU1 - serverCPU0) / holdSeconds * 100
        result.clientCPU = (ownCPUSeconds() - clientCPU0) / holdSeconds * 100
        result.jobsRunningAtEnd = await health(server.baseURL)?.jobsRunning
        // 3. Stop: subscribers close on their next frame (heartbeats come every --heartbeat s), then the server goes.
        stats.stop.store(true, ordering: .relaxed)
        let closeDeadline = clock.now + .seconds(options.heartbeat * 3 + 2)
        while stats.open > 0, clock.now < closeDeadline { try? await Task.sleep(for: .milliseconds(100)) }
        for instance in servers { await instance.stop() }
        group.cancelAll()
    }
    result.failed = stats.failed.load(ordering: .relaxed)
    result.failures.merge(stats.failureReasons) { $0 + $1 }
    result.rampP50 = stats.rampLatency.percentile(0.5)
    result.rampP99 = stats.rampLatency.percentile(0.99)
    result.steadyP50 = stats.steadyLatency.percentile(0.5)
    result.steadyP99 = stats.steadyLatency.percentile(0.99)
    result.liveEvents = stats.liveEvents.load(ordering: .relaxed)
    result.replayed = stats.replayedEvents.load(ordering: .relaxed)
    result.negative = stats.rampLatency.negativeCount + stats.steadyLatency.negativeCount
    return result
}

func printResults(_ results: [PhaseResult], options: Options) {
    let store = options.database == nil ? "in memory" : "PostgreSQL, \(options.instances) instance(s), subscribers spread over them; RSS = the largest instance's"
    print("ServerBench (jobs \(store); engine \(options.instantEngine ? "instant" : "real")): bookscan serve --scan-step-delay \(options.stepDelay) --heartbeat \(options.heartbeat) --workers \(options.workers > 0 ? "\(options.workers)" : "= jobs") --queue = jobs; batches of \(options.batch); hold \(options.hold) s")
    print("| phase (jobs × subs/job) | jobs accepted | subscribers held (after ramp / min in hold) | failed | ramp s | RSS idle MiB | RSS + jobs MiB | RSS + subscribers MiB (VmHWM) | KiB per subscriber | server threads | latency p50 / p99 ms (steady) | latency p50 / p99 ms (during ramp) | live events in hold (per s) | server CPU % / client CPU % in hold | jobs still running at end |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results {
        let held = Double(r.heldAfterRamp)
        let perSubscriber = (r.withSubscribers.rssMiB ?? 0) - (r.withJobs.rssMiB ?? 0)
        print(
            "| \(r.phase.jobs) × \(r.phase.subscribersPerJob) | \(r.accepted) | \(r.heldAfterRamp) / \(r.minHeldDuringHold) | \(r.failed) | \(fmt(r.rampSeconds)) | "
                + "\(fmt(r.idle.rssMiB)) | \(fmt(r.withJobs.rssMiB)) | \(fmt(r.withSubscribers.rssMiB)) (\(fmt(r.withSubscribers.peakMiB))) | "
                + "\(held > 0 ? fmt(perSubscriber * 1024 / held, 0) : "–") | \(r.withSubscribers.threads.map(String.init) ?? "–") | "
                + "\(fmt(r.steadyP50)) / \(fmt(r.steadyP99)) | \(fmt(r.rampP50)) / \(fmt(r.rampP99)) | "
                + "\(r.steadyEvents) (\(fmt(Double(r.steadyEvents) / options.hold, 0))) | \(fmt(r.serverCPU, 0)) / \(fmt(r.clientCPU, 0)) | \(r.jobsRunningAtEnd.map(String.init) ?? "–") |")
    }
    for r in results where !r.failures.isEmpty || r.negative > 0 || r.replayed > 0 || r.abortedForRSS {
        print("\n\(r.phase): \(r.abortedForRSS ? "STOPPED EARLY: server RSS passed --max-rss-mib \(options.maxRSSMiB); " : "")\(r.replayed) replayed events not timed; \(r.negative) negative latencies (clock resolution)")
        for (reason, count) in r.failures.sorted(by: { $0.value > $1.value }).prefix(5) { print("  \(count) × \(reason)") }
    }
}

func main() async -> Int32 {
    let options: Options
    switch Options.parse(Array(CommandLine.arguments.dropFirst())) {
    case .success(let parsed): options = parsed
    case .failure(let error):
        say("ServerBench: \(error.message)")
        say("usage: ServerBench --serve PATH --image SMALL.jpg [--phases 100x1,1000x1,1000x10] [--step-delay 0.5] [--heartbeat 2] [--batch 500] [--hold 20] [--port 18480]")
        return 64
    }
    guard let data = FileManager.default.contents(atPath: options.image) else {
        say("ServerBench: cannot read \(options.image)")
        return 3
    }
    if let jobs = options.throughputJobs {
        do {
            try await printThroughput(jobs: jobs, options: options, jpeg: [UInt8](data))
            return 0
        } catch {
            say("ServerBench: throughput: \(error)")
            return 2
        }
    }
    var results: [PhaseResult] = []
    for (index, phase) in options.phases.enumerated() {
        say("phase \(phase) …")
        do {
            results.append(try await runPhase(phase, index: index, options: options, jpeg: [UInt8](data)))
        } catch {
            say("ServerBench: phase \(phase): \(error)")
            return 2
        }
    }
    printResults(results, options: options)
    return 0
}

exit(await main())
