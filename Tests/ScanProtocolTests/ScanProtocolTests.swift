import Foundation
import ScanProtocol
import Testing

@Suite("Wire protocol v1")
struct ScanProtocolTests {
    let jobId = UUID()

    @Test("server messages round-trip with their type tag")
    func serverMessages() throws {
        let event = JobEvent(jobId: jobId, seq: 3, state: .running, stage: .segmentingSpines, fraction: 0.42, timestamp: Date(timeIntervalSince1970: 1_700_000_000.5))
        for message in [ServerMessage.event(event), .heartbeat(Heartbeat(latestSeq: 3, timestamp: Date(timeIntervalSince1970: 1_700_000_001)))] {
            let data = try WireCoding.encode(message)
            #expect(try WireCoding.decode(ServerMessage.self, from: data) == message)
        }
        let text = String(decoding: try WireCoding.encode(ServerMessage.event(event)), as: UTF8.self)
        #expect(text.contains(#""type":"event""#))
        #expect(text.contains(#""stage":"segmenting_spines""#))
        #expect(text.contains("2023-11-14T22:13:20.500Z"))
    }

    @Test("the client hello constant is exactly the encoded hello message")
    func hello() throws {
        let encoded = String(decoding: try WireCoding.encode(ClientMessage.hello(ClientHello())), as: UTF8.self)
        #expect(encoded == ClientHello.frame)
        #expect(try WireCoding.decode(ClientMessage.self, from: Data(ClientHello.frame.utf8)) == .hello(ClientHello()))
    }

    @Test("an unknown message type is a decoding error, never a silent default")
    func unknownType() {
        #expect(throws: (any Error).self) { try WireCoding.decode(ServerMessage.self, from: Data(#"{"type":"progress"}"#.utf8)) }
        #expect(throws: (any Error).self) { try WireCoding.decode(JobState.self, from: Data(#""done""#.utf8)) }
    }

    @Test("error bodies carry a typed code")
    func errorBody() throws {
        let body = ErrorResponse(error: ErrorBody(code: .queueFull, message: "full", retryable: true))
        let text = String(decoding: try WireCoding.encode(body), as: UTF8.self)
        #expect(text == #"{"error":{"code":"queue_full","message":"full","retryable":true}}"#)
    }

    @Test("terminal states are exactly succeeded, failed, canceled")
    func terminal() {
        #expect(JobState.allCases.filter(\.isTerminal) == [.succeeded, .failed, .canceled])
    }

    @Test("routes are lower-case and replay-addressable")
    func routes() {
        let id = UUID(uuidString: "E084CA26-AC91-47E1-A391-6CA317CAAE3F")!
        #expect(Routes.scan(id) == "/v1/scans/e084ca26-ac91-47e1-a391-6ca317caae3f")
        #expect(Routes.events(id, after: 7) == "/v1/scans/e084ca26-ac91-47e1-a391-6ca317caae3f/events?after=7")
    }
}
