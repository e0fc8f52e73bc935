import BookscanTestSupport
import Foundation
import NIOConcurrencyHelpers
import ScanClient
import ScanProtocol
import ScanService
import Testing

/// The events route as Server-Sent Events, read byte for byte with libcurl's streaming transfer
/// and parsed here by lines (independently of the client's parser).
@Suite("GET /v1/scans/{jobId}/events as text/event-stream")
struct ServerSentEventsTests {
    /// What one event stream delivered: status, headers, the whole body text.
    struct StreamCapture: Sendable {
        var status: Int
        var headers: [String: String]
        var body: String

        /// The SSE blocks (separated by blank lines), each as its lines.
        var blocks: [[Substring]] {
            body.components(separatedBy: "\n\n").map { $0.split(separator: "\n") }.filter { !$0.isEmpty }
        }
        /// The job events, with the `id:` and `event:` of their block.
        var events: [(id: Int?, type: String?, event: JobEvent)] {
            blocks.compactMap { lines in
                guard let data = lines.first(where: { $0.hasPrefix("data: ") }),
                    case .event(let event)? = try? WireCoding.decode(ServerMessage.self, from: Data(data.dropFirst(6).utf8))
                else { return nil }
                let id = lines.first { $0.hasPrefix("id: ") }.flatMap { Int($0.dropFirst(4)) }
                let type = lines.first { $0.hasPrefix("event: ") }.map { String($0.dropFirst(7)) }
                return (id, type, event)
            }
        }
        var heartbeats: Int { body.split(separator: "\n").count { $0.hasPrefix(": \(EventStreamWire.heartbeatComment) ") } }
    }

    final class Bytes: Sendable {
        let state = NIOLockedValueBox<(status: Int, headers: [String: String], body: [UInt8])>((0, [:], []))
        var text: String { String(decoding: state.withLockedValue { $0.body }, as: UTF8.self) }
    }

    /// Streams the events route until the server ends the response; fails instead of hanging after `limit`.
    static func stream(
        _ harness: ServiceHarness, _ jobId: UUID, path: String? = nil, headers: [(String, String)] = [], token: String? = nil,
        limit: Duration = .seconds(120), live: Bytes = Bytes()
    ) async throws -> StreamCapture {
        var all = [("Accept", EventStreamWire.mediaType)] + headers
        if let token = token ?? harness.token { all.append(("Authorization", "Bearer \(token)")) }
        let request = HTTPRequestData(method: "GET", url: harness.baseURL + (path ?? Routes.events(jobId, after: 0)), headers: all)
        let sink = HTTPStreamSink(
            head: { status, headers in live.state.withLockedValue { $0.status = status; $0.headers = headers } },
            body: { chunk in live.state.withLockedValue { $0.body += chunk } })
        let status = try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask { try await harness.http.stream(request, into: sink) }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return try #require(first, "the stream was still open after \(limit): \(live.text)")
        }
        return StreamCapture(status: status, headers: live.state.withLockedValue { $0.headers }, body: live.text)
    }

    @Test("a stream opened right after the PUT: retry first, then every event once with id = seq and event: event, ending after the terminal one")
    func liveStream() async throws {
        try await ServiceHarness.with(.init().injecting(.init(scanStepDelay: .milliseconds(5)))) { harness in
            let id = UUID()
            #expect(try await harness.put(id, try SyntheticShelf.jpeg()).status == 202)
            let capture = try await Self.stream(harness, id)
            #expect(capture.status == 200)
            #expect(capture.headers["content-type"] == EventStreamWire.mediaType)
            #expect(capture.headers["transfer-encoding"]?.lowercased() == "chunked")
            #expect(capture.body.hasPrefix("retry: \(EventStreamWire.retryMilliseconds)\n"))
            let events = capture.events
            #expect(events.map(\.event.seq) == Array(1...events.count))
            #expect(events.allSatisfy { $0.id == $0.event.seq && $0.type == EventStreamWire.eventType })
            #expect(events.filter { $0.event.state.isTerminal }.count == 1)
            #expect(events.last?.event.state == .succeeded)
            #expect(events.last?.event.result != nil)
            // Nothing after the terminal event: the response ended with it.
            #expect(capture.body.hasSuffix("\n\n"))
            #expect(capture.blocks.last?.contains { $0.hasPrefix("data: ") } == true)
        }
    }

    @Test("Last-Event-ID and after= resume exactly after N: the same events as the WebSocket, nothing lost or repeated")
    func resume() async throws {
        try await ServiceHarness.with { harness in
            let id = UUID()
            #expect(try await harness.put(id, try SyntheticShelf.jpeg()).status == 202)
            let final = try #require(try await harness.waitForTerminal(id))
            let socket = try await harness.collectEvents(id).events
            let all = try await Self.stream(harness, id).events.map(\.event)
            #expect(all == socket)
            for after in [1, 3, final.seq - 1] where after < final.seq {
                let byHeader = try await Self.stream(harness, id, headers: [(EventStreamWire.lastEventIDHeader, "\(after)")]).events.map(\.event)
                let byQuery = try await Self.stream(harness, id, path: Routes.events(id, after: after)).events.map(\.event)
                #expect(byHeader == Array(all.dropFirst(after)))
                #expect(byQuery == byHeader)
            }
            // A finished job's stream still ends with its terminal event, even after the last id.
            let late = try await Self.stream(harness, id, headers: [(EventStreamWire.lastEventIDHeader, "\(final.seq)")]).events
            #expect(late.map(\.event.seq) == [final.seq])
        }
    }

    @Test("comment heartbeats arrive while the stream is open; the stream ends with the canceled event")
    func heartbeats() async throws {
        try await ServiceHarness.with(
            .init(workers: 1, heartbeatInterval: .milliseconds(50)).injecting(.init(scanStepDelay: .seconds(60)))) { harness in
            let id = UUID()
            #expect(try await harness.put(id, try SyntheticShelf.jpeg()).status == 202)
            let live = Bytes()
            let streaming = Task { try await Self.stream(harness, id, limit: .seconds(600), live: live) }
            // Hang guard only: heartbeats come every 50 ms.
            for _ in 0..<6_000 where live.text.components(separatedBy: ": \(EventStreamWire.heartbeatComment) ").count < 3 {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try await harness.request("DELETE", Routes.scan(id)).status == 202)
            let capture = try await streaming.value
            #expect(capture.heartbeats >= 2)
            #expect(capture.events.last?.event.state == .canceled)
            #expect(capture.events.filter { $0.event.state.isTerminal }.count == 1)
        }
    }

    @Test("an unknown job is a 404 JSON error, a missing token 401; without Accept the route still asks for an upgrade (426)")
    func refusals() async throws {
        try await ServiceHarness.with(.init(token: "s3cret-token")) { harness in
            let unknown = try await Self.stream(harness, UUID())
            #expect(unknown.status == 404)
            #expect((try? WireCoding.decode(ErrorResponse.self, from: Data(unknown.body.utf8)))?.error.code == .notFound)
            let id = UUID()
            #expect(try await harness.put(id, try SyntheticShelf.jpeg()).status == 202)
            #expect(try await Self.stream(harness, id, token: "wrong").status == 401)
            #expect(try await harness.request("GET", Routes.events(id, after: 0)).status == 426)
            let ok = try await Self.stream(harness, id)
            #expect(ok.status == 200 && ok.events.last?.event.state.isTerminal == true)
        }
    }

    @Test("the service's limits say it offers event streams")
    func limitsAdvertiseStreams() async throws {
        try await ServiceHarness.with { harness in
            let response = try await harness.request("GET", Routes.limits)
            #expect(try WireCoding.decode(ServiceLimits.self, from: Data(response.body)).eventStream == true)
        }
    }
}
