import Foundation
import ScanProtocol
import Testing

/// The multiplexed events route's wire forms: job cursors, subscribe / unsubscribe, subscribed /
/// refused, the per-job heartbeat.
@Suite("Wire protocol v1: /v1/events")
struct MultiplexedWireTests {
    let a = UUID(uuidString: "6F1C2A4E-0000-4000-8000-00000000000A")!
    let b = UUID(uuidString: "6F1C2A4E-0000-4000-8000-00000000000B")!

    @Test("jobs= lists ID or ID:N; a later entry of the same job wins; anything malformed rejects the whole list")
    func cursors() throws {
        let text = "\(a.uuidString.lowercased()),\(b.uuidString):7"
        #expect(JobCursor.list(fromQuery: text) == [JobCursor(jobId: a), JobCursor(jobId: b, after: 7)])
        #expect(JobCursor.list(fromQuery: "\(a.uuidString):3,\(a.uuidString):9") == [JobCursor(jobId: a, after: 9)])
        #expect(JobCursor.list(fromQuery: "") == [])
        for bad in ["nope", "\(a.uuidString):-1", "\(a.uuidString):x", "\(a.uuidString),zzz", "\(a.uuidString):1:2"] {
            #expect(JobCursor.list(fromQuery: bad) == nil, "\(bad)")
        }
        #expect(Routes.multiplexedEvents([JobCursor(jobId: a), JobCursor(jobId: b, after: 2)])
            == "/v1/events?jobs=\(a.uuidString.lowercased()),\(b.uuidString.lowercased()):2")
        #expect(Routes.multiplexedEvents([]) == "/v1/events")
        #expect(Routes.isEvents("/v1/events") && Routes.isMultiplexedEvents("/v1/events") && !Routes.isMultiplexedEvents("/v1/eventsx"))
    }

    @Test("client and server messages round-trip with their type tags")
    func roundTrip() throws {
        let clientMessages: [ClientMessage] = [
            .subscribe(SubscribeRequest(jobs: [JobCursor(jobId: a, after: 3)])), .unsubscribe(UnsubscribeRequest(jobs: [b])), .hello(ClientHello()),
        ]
        for message in clientMessages {
            let data = try WireCoding.encode(message)
            #expect(try WireCoding.decode(ClientMessage.self, from: data) == message)
        }
        let subscribe = String(decoding: try WireCoding.encode(clientMessages[0]), as: UTF8.self)
        #expect(subscribe.contains(#""type":"subscribe""#) && subscribe.contains(#""after":3"#))
        let serverMessages: [ServerMessage] = [
            .subscribed(SubscriptionOpened(jobId: a, after: 3, latestSeq: 9)),
            .refused(SubscriptionRefused(jobId: b, status: 404, error: ErrorBody(code: .notFound, message: "no job", retryable: false))),
            .heartbeat(Heartbeat(latestSeq: 9, timestamp: Date(timeIntervalSince1970: 1_700_000_000), jobs: [JobLatestSeq(jobId: a, latestSeq: 9)])),
        ]
        for message in serverMessages {
            #expect(try WireCoding.decode(ServerMessage.self, from: try WireCoding.encode(message)) == message)
        }
        // A one-job heartbeat has no jobs list, and decodes without one.
        let single = try WireCoding.decode(ServerMessage.self, from: Data(#"{"type":"heartbeat","heartbeat":{"latestSeq":4,"timestamp":"2026-01-01T00:00:00.000Z"}}"#.utf8))
        guard case .heartbeat(let heartbeat) = single else { Issue.record("not a heartbeat"); return }
        #expect(heartbeat.jobs == nil && heartbeat.latestSeq == 4)
    }

    @Test("an SSE message of the multiplexed stream carries the job cursor as its id")
    func streamMessage() {
        let text = EventStreamWire.multiplexedMessage(type: EventStreamWire.eventType, cursor: JobCursor(jobId: a, after: 5), frameJSON: "{}")
        #expect(text == "id: \(a.uuidString.lowercased()):5\nevent: event\ndata: {}\n\n")
        #expect(EventStreamWire.multiplexedMessage(type: EventStreamWire.heartbeatType, cursor: nil, frameJSON: "{}") == "event: heartbeat\ndata: {}\n\n")
    }
}
