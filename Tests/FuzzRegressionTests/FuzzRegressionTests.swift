import Foundation
import FuzzHarness
import ScanClient
import Testing

/// Replays every saved fuzz input (the seed corpus, crashes fixed, inputs that reached new coverage)
/// through the same harness the libFuzzer targets run: each must give a result or a typed error,
/// never break an invariant. Add a file to Regressions/jpeg or Regressions/wire and it is replayed here.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    static let regressions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Regressions")
    static let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Fuzz/corpus").standardized

    /// The committed seeds and regression cases of one kind (`jpeg` or `wire`).
    static func inputs(_ kind: String) -> [String] {
        FuzzReplay.inputFiles([seeds.appendingPathComponent(kind).path, regressions.appendingPathComponent(kind).path])
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try #require(FileManager.default.contents(atPath: path), "cannot read \(path)"))
    }

    @Test("each saved JPEG input is prepared or refused with a PrepareError", arguments: inputs("jpeg"))
    func jpeg(path: String) throws {
        let outcome = JPEGPreparationFuzz.run(try Self.bytes(path))
        #expect(!outcome.isViolation, "\(path): \(outcome)")
    }

    @Test(
        "each saved wire input decodes and round-trips stably, or fails with a DecodingError; the tracker and display consume it",
        arguments: inputs("wire"))
    func wire(path: String) throws {
        let outcome = WireDecodingFuzz.run(try Self.bytes(path))
        #expect(!outcome.isViolation, "\(path): \(outcome)")
    }

    @Test("the seed and regression directories are found (a wrong path would make the replays vacuous)")
    func directoriesHaveInputs() {
        for kind in ["jpeg", "wire"] {
            #expect(FuzzReplay.inputFiles([Self.seeds.appendingPathComponent(kind).path]).count >= 10)
            #expect(FuzzReplay.inputFiles([Self.regressions.appendingPathComponent(kind).path]).count >= 3)
        }
    }

    @Test("hostile numbers reach the tracker and the progress display, and are drawn within the bar")
    func hostileNumbersAreConsumed() throws {
        let wire = Self.regressions.appendingPathComponent("wire")
        let huge = WireConsumptionFuzz.run(Data(try Self.bytes(wire.appendingPathComponent("hostile-event-fraction-huge.json").path)))
        #expect(huge.contains("tracker(message): 1 drawn"), "\(huge)")
        #expect(huge.contains("display(raw fraction)"), "\(huge)")
        let snapshot = WireConsumptionFuzz.run(Data(try Self.bytes(wire.appendingPathComponent("hostile-snapshot-extremes.json").path)))
        #expect(snapshot.contains { $0.hasPrefix("tracker(snapshot): ") && $0 != "tracker(snapshot): 0 drawn" }, "\(snapshot)")
        let limits = WireConsumptionFuzz.run(Data(try Self.bytes(wire.appendingPathComponent("hostile-limits-extremes.json").path)))
        #expect(limits.contains("settings(limits)"), "\(limits)")
    }

    @Test("the harness flags what it must: a good JPEG and a good message are accepted, junk is rejected")
    func harnessSeesOutcomes() throws {
        let jpeg = try Self.bytes(Self.seeds.appendingPathComponent("jpeg/exif_right_le_40x24.jpg").path)
        guard case .accepted(let prepared) = JPEGPreparationFuzz.run(jpeg) else {
            Issue.record("a valid JPEG was not accepted: \(JPEGPreparationFuzz.run(jpeg))")
            return
        }
        #expect(prepared.contains("24×40"))  // orientation 6 swaps the 40×24 stored pixels
        #expect(JPEGPreparationFuzz.run(Array("GIF89a".utf8)) == .rejected("is a GIF image; bookscan reads JPEG only. Convert it first, e.g. `convert IN OUT.jpg`, or export as JPEG"))
        let hello = Array(#"{"type":"hello","hello":{"protocolVersion":1}}"#.utf8)
        #expect(WireDecodingFuzz.run(hello) == .accepted("ClientMessage"))
        #expect(WireDecodingFuzz.run(Array("{".utf8)) == .rejected("no wire type decodes it"))
    }
}
