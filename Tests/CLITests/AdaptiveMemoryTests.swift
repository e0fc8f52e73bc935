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
    /// One `bookscan scan --adaptive` of a sample through `proxy`; returns the record it appended to `log`.
    static func adaptiveScan(through proxy: FaultProxy, log: String) async throws -> [String: Any] {
        let sample = CLITests.samples.appendingPathComponent("shelf_one_row.jpg").path
        let run = try await CLITests().bookscan([
            "scan", sample, "--server", proxy.baseURL, "--adaptive", "--analytics-log", log, "--poll-interval", "200ms", "--quiet",
            // These runs are about what memory learns, not about silence: a stalled machine must not make
            // a healthy stream look dead (a full-suite run under a host stall once saw 5 s without a byte).
            "--silence-timeout", "60s",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        return try JSONSerialization.jsonObject(with: Data(try #require(lines.last).utf8)) as? [String: Any] ?? [:]
    }

    @Test("events blocked (WebSocket and SSE) twice → polling preferred (with a failing probe); unblocked → the probe clears the verdict")
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
        func scan() async throws -> [String: Any] { try await Self.adaptiveScan(through: proxy, log: log) }
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

    @Test("upgrades blocked twice (SSE passes) → the next run starts at SSE, never tries the socket, probes it in the background")
    func startsAtEventStream() async throws {
        let service = try await EmbeddedScanService.startQuietly()
        let proxy = try await FaultProxy.start(upstreamPort: service.port) { _ in .blockUpgrade }
        defer {
            Task {
                await proxy.stop()
                await service.stop()
            }
        }
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("adaptive-sse-\(UUID().uuidString).jsonl").path
        func scan() async throws -> [String: Any] { try await Self.adaptiveScan(through: proxy, log: log) }
        for _ in 0..<2 {
            let blocked = try await scan()
            #expect(blocked["strategy"] as? String == "sse")
            #expect(blocked["fallbackFrom"] as? String == "websocket")
            #expect(blocked["fallbackReason"] as? String == "refused")
            #expect(blocked["adaptiveEventStream"] == nil)
        }
        let upgradesBefore = proxy.requests.filter { $0.0.isUpgrade }.count
        let third = try await scan()
        #expect(third["strategy"] as? String == "sse")
        #expect(third["adaptiveEventStream"] as? Bool == true)
        #expect(third["fallbackFrom"] == nil && third["socketFailures"] as? Int == 0)
        #expect(third["probeSucceeded"] as? Bool == false)
        // The run itself opened no socket: the one upgrade since is the background probe's.
        #expect(proxy.requests.filter { $0.0.isUpgrade }.count == upgradesBefore + 1)
    }
}
