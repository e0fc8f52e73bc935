import BookscanTestSupport
import FaultProxy
import Foundation
import ScanProtocol
import ScanService
import Testing

/// `bookscan scan` over a network that blocks WebSocket upgrades: everything the user sees — the
/// `--events` stream, the `--json` report, the analytics record, `stats` — says SSE carried the job.
@Suite("SSE through a proxy that blocks upgrades (CLI)")
struct EventStreamCLITests {
    let cli = CLITests()
    let sample = CLITests.samples.appendingPathComponent("shelf_one_row.jpg").path

    @Test("auto and --strategy sse: the emitted stream is whole and in order on [sse], the report and the record say sse", arguments: ["auto", "sse"])
    func blockedUpgrades(strategy: String) async throws {
        let service = try await EmbeddedScanService.startQuietly(ServiceConfiguration().injecting(FaultSeams(scanStepDelay: .milliseconds(20))))
        let proxy = try await FaultProxy.start(upstreamPort: service.port) { _ in .blockUpgrade }
        defer {
            Task {
                await proxy.stop()
                await service.stop()
            }
        }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("sse-cli-\(UUID().uuidString).jsonl").path
        let run = try await cli.bookscan([
            "scan", sample, "--server", proxy.baseURL, "--strategy", strategy, "--events", "--json", "--analytics-log", log,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let objects = run.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let stream = EmittedStream(stdout: run.stdout)
        #expect(stream.problems.isEmpty, "\(stream.problems)")
        // Every event after the upload's answer came over the stream, and none is missing after the first.
        let paths = objects.compactMap { $0["path"] as? String }
        #expect(paths.first == "upload" && paths.dropFirst().allSatisfy { $0 == "sse" }, "\(paths)")
        let seqs = stream.events.map(\.seq)
        #expect(seqs == Array((seqs.first ?? 1)...(seqs.last ?? 1)), "\(seqs)")

        let report = try #require(objects.first { $0["outcome"] != nil })
        #expect(report["outcome"] as? String == "succeeded")
        #expect(report["strategy"] as? String == "sse")
        #expect(report["fallbackFrom"] as? String == (strategy == "auto" ? "websocket" : nil))
        #expect(report["polls"] as? Int == 0)

        let record = try #require(
            try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").last.flatMap {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            })
        #expect(record["schemaVersion"] as? Int == 2)
        #expect(record["strategy"] as? String == "sse")
        #expect(record["streamFailures"] as? Int == 0)
        let counted = record["eventsByPath"] as? [String: Int]
        #expect(counted == ["upload": 1, "sse": paths.count - 1], "\(String(describing: counted)) vs \(paths)")
        if strategy == "auto" {
            #expect(record["fallbackReason"] as? String == "refused" && record["socketFailures"] as? Int == 1)
        } else {
            #expect(record["fallbackReason"] == nil && record["socketFailures"] as? Int == 0)
        }

        let stats = try await cli.bookscan(["stats", "--log", log, "--json"])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any])
        let sse = try #require(summary["eventStreamSuccess"] as? [String: Any])
        #expect(sse["numerator"] as? Int == 1 && sse["denominator"] as? Int == 1)
    }
}
