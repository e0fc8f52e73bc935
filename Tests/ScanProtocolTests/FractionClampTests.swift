import Foundation
import ScanProtocol
import Testing

/// A fraction from the wire is clamped to 0…1 when it is decoded: nothing downstream sees 1e308 or -5.
@Suite("fractions from the wire")
struct FractionClampTests {
    static let id = "6f1c2a8e-3b4d-4c5e-9f60-718293a4b5c6"

    @Test("ProgressFraction.clamped keeps 0…1 and maps NaN to 0")
    func clamped() {
        #expect(ProgressFraction.clamped(0.25) == 0.25)
        #expect(ProgressFraction.clamped(1e308) == 1)
        #expect(ProgressFraction.clamped(-5) == 0)
        #expect(ProgressFraction.clamped(.infinity) == 1)
        #expect(ProgressFraction.clamped(-.infinity) == 0)
        #expect(ProgressFraction.clamped(.nan) == 0)
    }

    @Test("events and snapshots decode a fraction of 1e308 as 1 and -5 as 0", arguments: [("1e308", 1.0), ("-5", 0.0), ("0.5", 0.5)])
    func decoded(_ text: String, _ expected: Double) throws {
        let event = #"{"jobId":"\#(Self.id)","seq":9223372036854775807,"state":"running","stage":"decoding","fraction":\#(text),"timestamp":"2026-11-21T14:05:01.234Z"}"#
        let decodedEvent = try WireCoding.decode(JobEvent.self, from: Data(event.utf8))
        #expect(decodedEvent.fraction == expected)
        #expect(decodedEvent.seq == Int.max)
        let message = try WireCoding.decode(ServerMessage.self, from: Data(#"{"type":"event","event":\#(event)}"#.utf8))
        #expect(message == .event(decodedEvent))
        let snapshot = #"{"jobId":"\#(Self.id)","state":"running","stage":"decoding","fraction":\#(text),"seq":1,"createdAt":"2026-11-21T14:05:00.000Z","updatedAt":"2026-11-21T14:05:00.000Z","expiresAt":"2026-11-21T15:05:00.000Z","imageBytes":1,"links":{"status":"/s","events":"/e"}}"#
        #expect(try WireCoding.decode(JobSnapshot.self, from: Data(snapshot.utf8)).fraction == expected)
    }
}
