import BookscanTestSupport
import Foundation
import ScanClient
import ScanProtocol
import ScanService
import Testing

/// `GET /metrics` scraped while a real job runs on the real service: every series moves as it
/// should (uploads, scans, requests by route and status, events and heartbeats by transport, open
/// subscribers up then down, stage times, jobs by state, a refused upgrade by its status), behind
/// the token, which never appears in it (`GET /openapi.yaml` is checked in `InProcessWebRouteTests`).
@Suite("Prometheus metrics of a running scan")
struct MetricsTests {
    static let token = "metrics-test-secret-0c1d"

    /// The exposition as `series → value` (`name{labels}` exactly as printed).
    static func parse(_ text: String) -> [String: Double] {
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            values[String(line[..<space])] = value
        }
        return values
    }

    func scrape(_ harness: ServiceHarness) async throws -> [String: Double] {
        let response = try await harness.request("GET", Routes.metrics)
        #expect(response.status == 200)
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(!text.contains(Self.token))
        return Self.parse(text)
    }

    @Test("a scan followed over a WebSocket moves every number it should, and only by what happened")
    func numbersMove() async throws {
        var configuration = ServiceConfiguration(token: Self.token, heartbeatInterval: .milliseconds(150))
        configuration = configuration.injecting(FaultSeams(scanStepDelay: .milliseconds(40)))
        try await ServiceHarness.with(configuration) { harness in
            let unauthorized = try await harness.http.send(HTTPRequestData(method: "GET", url: harness.baseURL + Routes.metrics))
            #expect(unauthorized.status == 401)
            let before = try await scrape(harness)
            #expect(before["bookscan_upload_bytes_total"] == 0 && before["bookscan_scans_started_total"] == 0)
            #expect(before[#"bookscan_subscribers{transport="websocket"}"#] == 0)
            #expect(before[#"bookscan_jobs{state="succeeded"}"#] == 0)

            let id = UUID(), jpeg = try SyntheticShelf.jpeg(seed: 61)
            #expect(try await harness.put(id, jpeg).status == 202)
            async let transcript = harness.collectEvents(id)
            // While the socket is open, one WebSocket subscriber is counted (a hang guard, no timing).
            var during: [String: Double] = [:]
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                during = try await scrape(harness)
                if during[#"bookscan_subscribers{transport="websocket"}"#] == 1 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(during[#"bookscan_subscribers{transport="websocket"}"#] == 1)
            let socket = try await transcript
            #expect(socket.events.last?.state == .succeeded)
            _ = try await harness.waitForTerminal(id)

            // An upgrade for a job nobody knows is refused with 404 and counted by that status.
            let port = harness.service.port, unknown = Routes.events(UUID(), after: 0) + "&\(ProtocolNames.accessTokenQuery)=\(Self.token)"
            let head = try await onThread {
                let socket = try RawSocket(port: port)
                defer { socket.close() }
                return RawWebSocket(socket: socket).handshake(path: unknown) ?? ""
            }
            #expect(head.hasPrefix("HTTP/1.1 404"), "\(head)")

            var after: [String: Double] = [:]
            while ContinuousClock.now < deadline {
                after = try await scrape(harness)
                if after[#"bookscan_subscribers{transport="websocket"}"#] == 0 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(after["bookscan_upload_bytes_total"] == Double(jpeg.count))
            #expect(after["bookscan_scans_started_total"] == 1)
            #expect(after[#"bookscan_http_requests_total{method="PUT",route="/v1/scans/{jobId}",status="202"}"#] == 1)
            #expect(after[#"bookscan_events_sent_total{transport="websocket"}"#] == Double(socket.events.count))
            #expect(after[#"bookscan_events_sent_total{transport="sse"}"#] == 0)
            #expect((after[#"bookscan_heartbeats_total{transport="websocket"}"#] ?? 0) >= Double(socket.heartbeats))
            #expect(after[#"bookscan_subscribers{transport="websocket"}"#] == 0)
            #expect(after[#"bookscan_upgrade_refusals_total{status="404"}"#] == 1)
            #expect(after[#"bookscan_jobs{state="succeeded"}"#] == 1 && after["bookscan_queue_depth"] == 0)
            #expect(after[#"bookscan_scan_stage_seconds_count{stage="decoding"}"#] == 1)
            // The scrapes themselves are counted by their route, not by a raw path.
            #expect((after[#"bookscan_http_requests_total{method="GET",route="/metrics",status="200"}"#] ?? 0) >= 2)
            #expect(!after.keys.contains { $0.contains(id.uuidString.lowercased()) })
        }
    }
}
