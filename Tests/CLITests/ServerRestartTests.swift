import BookscanTestSupport
import BookscanBase
import Foundation
import ScanClient
import Testing

/// A real `bookscan serve` process killed with SIGKILL and restarted on the same port while three real
/// `bookscan scan --server` processes have one job running and two queued on it. Each client, seeing
/// 404 for its job, resubmits it once with the same jobId and bytes and completes.
@Suite("server restart mid-job")
struct ServerRestartTests {
    let cli = CLITests()

    /// Seconds the service stays down (`BOOKSCAN_RESTART_DOWNTIME`, default 2) — for the RELIABILITY figures.
    static var downtime: Duration {
        let seconds = ProcessInfo.processInfo.environment["BOOKSCAN_RESTART_DOWNTIME"].flatMap(Double.init) ?? 2
        return .milliseconds(Int64(seconds * 1000))
    }

    func health(_ port: Int) async -> [String: Any]? {
        guard let response = try? await CurlHTTPClient().send(HTTPRequestData(method: "GET", url: "http://127.0.0.1:\(port)/healthz")),
            response.status == 200
        else { return nil }
        return try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
    }

    /// One worker, and every progress step held 200 ms, so a scan lasts long enough to be killed mid-way,
    /// and one job outlasts the other clients' uploads even on a loaded machine (with 60 ms a full-suite
    /// run under a host stall once saw the first job finish before the third upload was accepted).
    func serve(port: Int) throws -> ChildProcess {
        try ChildProcess.bookscan(["serve", "--port", "\(port)", "--workers", "1", "--scan-step-delay", "0.2"])
    }

    func report(_ client: ChildProcess) -> [String: Any]? {
        client.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["outcome"] != nil }
    }

    @Test("SIGKILL with one job running and two queued, restart on the same port: each client resubmits once and completes")
    func restartMidJob() async throws {
        // Real processes and a job that must still be running when it is killed: it takes its turn with
        // the other heavy tests (a machine loaded by them let the running job finish before the kill).
        try await HeavyTests.gate.run { try await self.restartMidJobBody() }
    }

    func restartMidJobBody() async throws {
        var images: [String] = []
        var expected: [Int] = []
        for seed in 0..<3 {
            let image = try cli.temporary(try BatchTests.photo(seed: 40 + seed), "restart-\(seed)-\(UUID().uuidString).jpg")
            // The fault-free result of this very image.
            let clean = try await cli.bookscan(["scan", image, "--json", "--quiet", "--no-analytics"])
            #expect(clean.status == 0, "\(clean.stderr)")
            let cleanReport = try #require(try JSONSerialization.jsonObject(with: Data(clean.stdout.utf8)) as? [String: Any])
            images.append(image)
            expected.append(try #require(cleanReport["spineCount"] as? Int))
        }

        let first = try serve(port: 0)
        #expect(await ChildProcess.until { first.listeningPort != nil }, "\(first.stderr)")
        let port = try #require(first.listeningPort)
        let logs = images.map { _ in FileManager.default.temporaryDirectory.appendingPathComponent("restart-\(UUID().uuidString).jsonl").path }
        let clients = try images.indices.map { i in
            try ChildProcess.bookscan(["scan", images[i], "--server", "http://127.0.0.1:\(port)", "--events", "--json", "--analytics-log", logs[i]])
        }
        // Every upload accepted: one job running, two queued; and a client shows progress.
        let loaded = await ChildProcess.until {
            guard let h = await health(port) else { return false }
            return h["jobsRunning"] as? Int == 1 && h["jobsQueued"] as? Int == 2
        }
        #expect(loaded, "the three jobs never were running + queued at once")
        #expect(await ChildProcess.until { clients.contains { $0.stdout.contains(#""state":"running""#) } })
        // Every client has its job's first event, so it holds the answer to its upload: the service can
        // accept a job before its client reads the reply, and a client killed in between only uploads
        // again (counted as an upload attempt, not a resubmission).
        #expect(await ChildProcess.until { clients.allSatisfy { $0.stdout.contains(#""seq":"#) } }, "a client never showed its job")

        let killed = ContinuousClock.now
        kill(first.pid, SIGKILL)
        #expect(await first.exit() == SIGKILL)
        try await Task.sleep(for: Self.downtime)
        let second = try serve(port: port)
        #expect(await ChildProcess.until { second.listeningPort == port }, "the restart could not listen on \(port): \(second.stderr)")
        let down = ContinuousClock.now - killed

        var figures: [String] = []
        for (i, client) in clients.enumerated() {
            let status = await client.exit()
            #expect(client.process.terminationReason == .exit)
            #expect(status == 0, "client \(i): \(client.stderr)")
            let result = try #require(report(client), "client \(i) printed no report: \(client.stdout)")
            #expect(result["outcome"] as? String == "succeeded")
            #expect(result["spineCount"] as? Int == expected[i], "client \(i): \(result["spineCount"] ?? "none") vs \(expected[i])")
            #expect(result["resubmissions"] as? Int == 1)
            // The whole emitted stream across the resubmission: it goes on, never back (the new job is
            // numbered after what the first one showed, and its early events are not news).
            let stream = EmittedStream(stdout: client.stdout)
            #expect(stream.events.count >= 2, "client \(i): \(client.stdout)")
            #expect(stream.problems.isEmpty, "client \(i): \(stream.problems)")
            let records = try String(contentsOfFile: logs[i], encoding: .utf8).split(separator: "\n")
            #expect(records.count == 1)
            let record = try #require(try JSONSerialization.jsonObject(with: Data((records.first ?? "").utf8)) as? [String: Any])
            #expect(record["outcome"] as? String == "succeeded")
            #expect(record["resubmissions"] as? Int == 1)
            #expect((record["jobId"] as? String)?.lowercased() == (result["jobId"] as? String)?.lowercased())
            // The transport carrying the first submission failed (the socket, or the event stream when the
            // ladder had reached it), so the record must not claim a failure-free `websocket` run.
            #expect((record["socketFailures"] as? Int ?? 0) + (record["streamFailures"] as? Int ?? 0) > 0, "\(record)")
            #expect(record["strategy"] as? String != "websocket", "\(record)")
            figures.append(
                "client \(i): \(record["strategy"] ?? "-"), uploads \(record["uploadAttempts"] ?? "-"), polls \(record["polls"] ?? "-"), "
                    + "reconnects \(record["reconnects"] ?? "-"), socket failures \(record["socketFailures"] ?? "-"), "
                    + "stream failures \(record["streamFailures"] ?? "-"), "
                    + String(format: "%.1f s", record["totalSeconds"] as? Double ?? 0))
        }
        // The restarted service scanned each resubmitted job exactly once.
        let h = await health(port)
        #expect(h?["scansStarted"] as? Int == 3, "\(h ?? [:])")
        #expect(h?["jobsHeld"] as? Int == 3, "\(h ?? [:])")
        kill(second.pid, SIGTERM)
        _ = await second.exit()
        print("restart figures: down \(String(format: "%.2f", down.inSeconds)) s (kill → listening again); " + figures.joined(separator: "; "))
    }
}
