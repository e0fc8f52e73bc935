import BookscanBase
import Foundation
import ScanClient
import ScanProtocol

/// Jobs/s with the zero-cost engine (`serve --instant-scan`): one in-memory instance, then 1, 2 and
/// 3 instances on the database (`--throughput JOBS --database URL`), in the same run. Uploads are
/// spread round-robin over the instances, `--upload-width` at once; the clock runs from the first
/// PUT until no job is queued or running (the store's own counts in `/healthz`).
func printThroughput(jobs: Int, options: Options, jpeg: [UInt8]) async throws {
    var rows: [(String, Double, Int)] = []
    var configurations: [(name: String, instances: Int, database: String?)] = [("in memory, 1 instance", 1, nil)]
    if let database = options.database {
        configurations += (1...3).map { ("PostgreSQL, \($0) instance\($0 > 1 ? "s" : "")", $0, database) }
    }
    for (index, configuration) in configurations.enumerated() {
        say("throughput: \(configuration.name) …")
        let (seconds, succeeded) = try await throughputRun(
            jobs: jobs, instances: configuration.instances, database: configuration.database, portBase: options.port + 100 + index * 10,
            options: options, jpeg: jpeg)
        rows.append((configuration.name, seconds, succeeded))
    }
    let workers = options.workers > 0 ? options.workers : 2
    print("ServerBench throughput: \(jobs) jobs, zero-cost engine (`serve --instant-scan`), \(workers) workers per instance, uploads \(options.uploadWidth) at once round-robin")
    print("| store | jobs succeeded | seconds | jobs/s | vs in memory |")
    print("|---|---|---|---|---|")
    let baseline = rows.first.map { Double($0.2) / $0.1 } ?? 1
    for (name, seconds, succeeded) in rows {
        let rate = Double(succeeded) / seconds
        print("| \(name) | \(succeeded)/\(jobs) | \(fmt(seconds, 2)) | \(fmt(rate, 0)) | \(fmt(rate / baseline, 2))× |")
    }
}

private func throughputRun(jobs: Int, instances: Int, database: String?, portBase: Int, options: Options, jpeg: [UInt8]) async throws -> (Double, Int) {
    var servers: [ServerProcess] = []
    defer { for server in servers { kill(server.pid, SIGKILL) } }
    for instance in 0..<instances {
        let extra = ["--instant-scan"] + (database.map { ["--database", $0, "--instance", "throughput-\(portBase)-\(instance)"] } ?? [])
        servers.append(
            try ServerProcess(
                binary: options.serve, port: portBase + instance, jobs: jobs, workers: options.workers > 0 ? options.workers : 2, stepDelay: nil,
                heartbeat: options.heartbeat, extra: extra))
    }
    for server in servers where !(await server.waitUntilReady(within: .seconds(30))) {
        throw UsageError("bookscan serve did not become ready on port \(server.port)")
    }
    let apis = servers.map { ScanAPI(baseURL: $0.baseURL, token: nil, http: CurlHTTPClient(), uploadRetry: RetryPolicy(delays: [.zero], jitter: .zero)) }
    let ids = (0..<jobs).map { (UUID(), $0) }
    let stats = SubscriberStats()
    let clock = ContinuousClock()
    let started = clock.now
    await forEachConcurrently(ids, width: options.uploadWidth) { id, index in
        do throws(ScanAPIError) {
            _ = try await apis[index % apis.count].upload(jobId: id, jpeg: jpeg)
        } catch {
            stats.fail("upload: \(error)")
        }
    }
    // Until nothing is queued or running (on a database every instance sees the same counts).
    var elapsed = (clock.now - started).inSeconds
    while clock.now - started < .seconds(600) {
        var busy = 0
        for server in (database == nil ? servers : [servers[0]]) {
            guard let status = await health(server.baseURL) else { busy += 1; continue }
            busy += status.jobsQueued + status.jobsRunning
        }
        elapsed = (clock.now - started).inSeconds
        if busy == 0 { break }
        try? await Task.sleep(for: .milliseconds(20))
    }
    var succeeded = 0
    for (id, index) in ids {
        if let snapshot = try? await apis[index % apis.count].status(jobId: id), snapshot.state == .succeeded { succeeded += 1 }
    }
    for (reason, count) in stats.failureReasons.sorted(by: { $0.value > $1.value }).prefix(3) { say("  \(count) × \(reason)") }
    for server in servers { await server.stop() }
    return (elapsed, succeeded)
}
