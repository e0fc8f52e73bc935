import BookscanTestSupport
import FaultProxy
import Foundation
import Logging
import NIOConcurrencyHelpers
import ScanService
import Testing

/// `--adaptive` end to end: the real binary against a real service behind a proxy that blocks
/// WebSockets (403, as corporate proxies do), then stops blocking.
@Suite("Adaptive strategy memory")
struct AdaptiveMemoryTests {
    @Test("two blocked runs → polling preferred (with a failing probe); unblocked → the probe clears the verdict")
    func learnsAndHeals() async throws {
        let service = try await EmbeddedScanService.startQuietly()
        let blocked = NIOLockedValueBox(true)
        let proxy = try await FaultProxy.start(upstreamPort: service.port) { request in
            blocked.withLockedValue { $0 } && request.path.contains("/events") ? .respond(status: 403) : .passThrough
        }
        defer {
            Task {
                await proxy.stop()
                await service.stop()
            }
        }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("adaptive-\(UUID().uuidString).jsonl").path
        let sample = CLITests.samples.appendingPathComponent("shelf_one_row.jpg").path
        let cli = CLITests()
        func scan() async throws -> [String: Any] {
            let run = try await cli.bookscan([
                "scan", sample, "--server", proxy.baseURL, "--adaptive", "--analytics-log", log, "--poll-interval", "200ms", "--quiet",
            ])
            #expect(run.status == 0, "\(run.stderr)")
            let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
            return try JSONSerialization.jsonObject(with: Data(try #require(lines.last).utf8)) as? [String: Any] ?? [:]
        }
        let first = try await scan()
        #expect(first["strategy"] as? String == "polling_fallback")
        #expect(first["fallbackStatus"] as? Int == 403)
        #expect(first["adaptivePolling"] == nil)
        _ = try await scan()
        let third = try await scan()
        #expect(third["strategy"] as? String == "polling")
        #expect(third["adaptivePolling"] as? Bool == true)
        #expect(third["probeSucceeded"] as? Bool == false)
        blocked.withLockedValue { $0 = false }
        let fourth = try await scan()
        #expect(fourth["adaptivePolling"] as? Bool == true)
        #expect(fourth["probeSucceeded"] as? Bool == true)
        let fifth = try await scan()
        #expect(fifth["strategy"] as? String == "websocket")
        #expect(fifth["adaptivePolling"] == nil)
    }
}
