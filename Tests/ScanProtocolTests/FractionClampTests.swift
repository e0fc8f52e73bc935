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

    @Test("a result's numbers decode clamped: coordinates and confidences 0…1, counts 0…Int32.max, timings finite")
    func resultClamped() throws {
        let text = #"{"imageWidth":9223372036854775807,"imageHeight":-1,"workingWidth":0,"workingHeight":-9223372036854775808,"rows":[{"index":-1,"box":{"x":-1e308,"y":1e308,"width":1e308,"height":-0.5},"spineCount":-3}],"spines":[{"index":-7,"row":9223372036854775807,"box":{"x":1e308,"y":-1e308,"width":0.25,"height":1e308},"confidence":1e308,"color":{"r":1,"g":2,"b":3},"pose":"upright","polygon":[[1e308,-1e308],[-1e308,1e308],[0.5,0.5],[-5,1e308]],"textConfidence":-2}],"timings":[{"stage":"decoding","milliseconds":-1e308}]}"#
        let result = try WireCoding.decode(ScanResult.self, from: Data(text.utf8))
        let sizes: [Int] = [result.imageWidth, result.imageHeight, result.workingWidth, result.workingHeight]
        #expect(sizes == [WireNumbers.maxCount, 0, 0, 0])
        #expect(result.rows == [ShelfRow(index: 0, box: NormalizedBox(x: 0, y: 1, width: 1, height: 0), spineCount: 0)])
        let spine = try #require(result.spines.first)
        #expect(spine.index == 0 && spine.row == WireNumbers.maxCount)
        #expect(spine.box == NormalizedBox(x: 1, y: 0, width: 0.25, height: 1))
        let corners: [[Double]] = spine.polygon.corners.map { [$0.x, $0.y] }
        #expect(corners == [[1, 0], [0, 1], [0.5, 0.5], [0, 1]])
        #expect(spine.confidence == 1 && spine.textConfidence == 0)
        #expect(result.timings.first?.milliseconds == 0)
        // A real result is unchanged by the round trip.
        let real = ScanResult(
            imageWidth: 4000, imageHeight: 3000, workingWidth: 1000, workingHeight: 750,
            rows: [ShelfRow(index: 0, box: NormalizedBox(x: 0.1, y: 0.2, width: 0.8, height: 0.3), spineCount: 1)],
            spines: [Spine(index: 0, row: 0, box: NormalizedBox(x: 0.1, y: 0.2, width: 0.05, height: 0.3), confidence: 0.9, color: RGBColor(r: 9, g: 8, b: 7), pose: .upright, title: "Dune", textConfidence: 0.8)],
            timings: [StageTiming(stage: .decoding, milliseconds: 12.5)])
        #expect(try WireCoding.decode(ScanResult.self, from: WireCoding.encode(real)) == real)
    }
}
