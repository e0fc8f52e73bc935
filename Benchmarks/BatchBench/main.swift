// BatchBench: what one `bookscan batch` of N photos costs the network, with its jobs followed on one
// shared events socket (the default) versus one socket per job (`--socket-per-job`), in the same run.
//
//   BatchBench --bookscan .build-release/release/bookscan [--photos 100] [--jobs 4] [--networks open,blocked,dropping]
//
// Starts the scan service in-process on loopback (boxes only, no OCR: the network is what is measured)
// with a request-counting seam, puts a FaultProxy in front of it per network (`open`: passes everything;
// `blocked`: refuses every WebSocket upgrade, as corporate proxies do; `dropping`: closes every
// WebSocket after 25 event frames, mid-scan), writes N small synthetic shelf
// photos to a temporary folder, and runs the real `bookscan batch` binary against the proxy twice per
// network: shared socket, then a socket per job. Counted per run: TCP connections and WebSocket
// upgrades (seen by the proxy), HTTP requests the service answered (uploads, polls, event streams,
// limits: every request on kept-alive connections too), and the batch's own summary (succeeded,
// strategies, wall time). Every run's results are checked against the first run's: the same spine
// count for every photo (the books found must not depend on how progress travelled).
import BookscanTestSupport
import FaultProxy
import Foundation
import NIOConcurrencyHelpers
import ScanService

struct Options {
    var bookscan: String?
    var photos = 100
    var jobs = 4
    var networks = ["open", "blocked", "dropping"]

    static func parse(_ arguments: [String]) -> Options? {
        var options = Options()
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard let value = iterator.next() else { return nil }
            switch argument {
            case "--bookscan": options.bookscan = value
            case "--photos": guard let n = Int(value), (1...1000).contains(n) else { return nil }; options.photos = n
            case "--jobs": guard let n = Int(value), (1...64).contains(n) else { return nil }; options.jobs = n
            case "--networks":
                let names = value.split(separator: ",").map(String.init)
                guard !names.isEmpty, names.allSatisfy({ ["open", "blocked", "dropping"].contains($0) }) else { return nil }
                options.networks = names
            default: return nil
            }
        }
        return options.bookscan == nil ? nil : options
    }
}

/// Requests the service answered, by method and route kind.
final class ServedRequests: Sendable {
    private let counts = NIOLockedValueBox<[String: Int]>([:])
    func record(_ method: String, _ path: String) {
        let kind =
            if path.hasPrefix("/v1/events") { "GET events (multiplexed)" } else if path.contains("/events") { "\(method) events" } else if path.hasPrefix("/v1/scans/") {
                "\(method) scan"
            } else { "\(method) \(path)" }
        counts.withLockedValue { $0[kind, default: 0] += 1 }
    }
    func take() -> [String: Int] {
        counts.withLockedValue { counts in
            defer { counts = [:] }
            return counts
        }
    }
}

struct RunResult {
    var label: String
    var connections: Int
    var upgrades: Int
    var acceptedUpgrades: Int
    var requests: [String: Int]
    var succeeded: Int
    var strategies: [String: Int]
    var wallSeconds: Double
    /// Spines found per photo, from the result files.
    var spines: [String: Int]
    var requestTotal: Int { requests.values.reduce(0, +) }
}

func say(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

func runBatch(_ options: Options, folder: String, proxy: FaultProxy, perJob: Bool, served: ServedRequests, label: String) async throws -> RunResult {
    let before = proxy.requests.count
    let beforeAccepted = proxy.acceptedUpgrades
    _ = served.take()
    let state = FileManager.default.temporaryDirectory.appendingPathComponent("batchbench-state-\(UUID().uuidString)").path
    let out = folder + "/.out-\(UUID().uuidString)"
    var arguments = ["batch", folder, "--server", proxy.baseURL, "--json", "--quiet", "--jobs", "\(options.jobs)", "--out", out]
    if perJob { arguments.append("--socket-per-job") }
    let child = try ChildProcess(
        executable: URL(fileURLWithPath: options.bookscan ?? "bookscan"), arguments,
        environment: ["BOOKSCAN_STATE_DIR": state, "XDG_STATE_HOME": state], removing: ["BOOKSCAN_SERVER", "BOOKSCAN_TOKEN"])
    let status = await child.exit()
    let line = child.stdout.split(separator: "\n").last.map(String.init) ?? ""
    let summary = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    if status != 0 { say("\(label): bookscan exited \(status): \(child.stderr.suffix(400))") }
    let proxied = proxy.requests.dropFirst(before)
    return RunResult(
        label: label, connections: proxied.count, upgrades: proxied.filter { $0.0.isUpgrade }.count,
        acceptedUpgrades: proxy.acceptedUpgrades - beforeAccepted, requests: served.take(),
        succeeded: summary["succeeded"] as? Int ?? 0, strategies: summary["strategies"] as? [String: Int] ?? [:],
        wallSeconds: summary["wallSeconds"] as? Double ?? 0, spines: spineCounts(out))
}

/// `image → spineCount` of every succeeded result under `out`.
func spineCounts(_ out: String) -> [String: Int] {
    var counts: [String: Int] = [:]
    for name in (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [] where name.hasSuffix(".jpg.json") {
        guard let data = FileManager.default.contents(atPath: out + "/" + name),
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
            let report = object["report"] as? [String: Any], report["outcome"] as? String == "succeeded",
            let spines = report["spineCount"] as? Int
        else { continue }
        counts[name] = spines
    }
    return counts
}

func run(_ options: Options) async throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("batchbench-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    for i in 0..<options.photos {
        let jpeg = try SyntheticShelf.jpeg(width: 480, height: 360, books: 8, seed: 1000 + i)
        try Data(jpeg).write(to: URL(fileURLWithPath: "\(folder)/shelf-\(String(format: "%03d", i)).jpg"))
    }
    let served = ServedRequests()
    // Steps slowed a little so jobs overlap as on a real service (a scan lasts ~1 s here).
    let configuration = ServiceConfiguration().injecting(
        FaultSeams(scanStepDelay: .milliseconds(15), observeRequest: { method, path, refusedUpgrade in
            if !refusedUpgrade { served.record(method, path) }
        }))
    let service = try await EmbeddedScanService.startQuietly(configuration)
    defer { Task { await service.stop() } }
    say("\(options.photos) photos, --jobs \(options.jobs), networks: \(options.networks.joined(separator: ", "))")
    var results: [RunResult] = []
    for network in options.networks {
        let proxy = try await FaultProxy.start(upstreamPort: service.port) { request in
            switch network {
            case "blocked": .blockUpgrade
            case "dropping": request.isUpgrade ? .dropAfterEvents(25) : .passThrough
            default: .passThrough
            }
        }
        for perJob in [true, false] {
            let label = "\(network), \(perJob ? "socket per job (before)" : "shared socket (after)")"
            say("running \(label)…")
            results.append(try await runBatch(options, folder: folder, proxy: proxy, perJob: perJob, served: served, label: label))
        }
        await proxy.stop()
    }
    let reference = results.first?.spines ?? [:]
    print("| network, events | photos ok | same books as run 1 | TCP connections | WebSocket upgrades (accepted) | HTTP requests answered | wall s | strategies |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results {
        let strategies = r.strategies.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let same = r.spines.count { reference[$0.key] == $0.value }
        print(
            "| \(r.label) | \(r.succeeded)/\(options.photos) | \(same)/\(options.photos) | \(r.connections) | \(r.upgrades) (\(r.acceptedUpgrades)) | \(r.requestTotal) "
                + "| \(String(format: "%.1f", r.wallSeconds)) | \(strategies) |")
    }
    print("")
    for r in results {
        print("\(r.label): requests by kind: \(r.requests.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
    }
}

guard let options = Options.parse(Array(CommandLine.arguments.dropFirst())) else {
    say("usage: BatchBench --bookscan PATH [--photos 100] [--jobs 4] [--networks open,blocked,dropping]")
    exit(64)
}
do {
    try await run(options)
} catch {
    say("BatchBench: \(error)")
    exit(1)
}
