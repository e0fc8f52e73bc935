import BookscanTestSupport
import Foundation
import ImageKit
import ImagePreparation
import ScanEngine
import ScanProtocol
import SpineReading
import Testing

/// The reading_titles stage inside ScanEngine: its place in the progress, and cancellation during OCR.
@Suite("ScanEngine reading titles")
struct EngineReadingTests {
    static func sample() throws -> [UInt8] {
        try ImagePreparer(longSide: 4096).prepare(path: ReadingFixtures.samples.appendingPathComponent("shelf_one_row.jpg").path).jpeg
    }

    @Test("reading_titles comes after segmentation with one step per spine; fractions never go back")
    func progress() async throws {
        let engine = try ScanEngine(configuration: .init(reader: ShelfReader(pool: try ReadingFixtures.pool.get())))
        let jpeg = try Self.sample()
        let (result, events) = try await onThread {
            var events: [(ScanStage, Double)] = []
            let result = try engine.scan(jpeg: jpeg, maxPixels: 50_000_000, progress: { events.append(($0, $1)) }, isCancelled: { false })
            return (result, events)
        }
        let order: [ScanStage] = [.decoding, .findingRows, .segmentingSpines, .readingTitles, .finishing]
        let stages = events.map(\.0)
        #expect(stages.map { order.firstIndex(of: $0) ?? -1 } == stages.map { order.firstIndex(of: $0) ?? -1 }.sorted())
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.1 <= $1.1 })
        let reading = events.filter { $0.0 == .readingTitles }
        // The stage's first report, then one per spine read: every spine detection found (the result may list
        // fewer, `SliverVeto`).
        let detected = try await onThread { try ScanEngine().scan(jpeg: jpeg, maxPixels: 50_000_000, progress: { _, _ in }, isCancelled: { false }) }
        #expect(reading.count == detected.spines.count + 1)
        #expect(result.spines.count <= detected.spines.count)
        #expect(Set(reading.map(\.1)).count == reading.count)
        #expect(result.timings.map(\.stage) == [.decoding, .findingRows, .segmentingSpines, .readingTitles, .finishing])
    }

    @Test("a job cancelled while titles are read ends with .canceled, before the last spine")
    func cancelDuringOCR() async throws {
        let engine = try ScanEngine(configuration: .init(reader: ShelfReader(pool: try ReadingFixtures.pool.get())))
        let jpeg = try Self.sample()
        let (outcome, readingReports) = try await onThread {
            var readingReports = 0
            let outcome = Result { () throws(ScanEngineError) in
                try engine.scan(
                    jpeg: jpeg, maxPixels: 50_000_000, progress: { stage, _ in if stage == .readingTitles { readingReports += 1 } },
                    isCancelled: { readingReports >= 3 })
            }
            return (outcome.map { _ in () }, readingReports)
        }
        #expect(throws: ScanEngineError.canceled) { try outcome.get() }
        #expect(readingReports >= 3 && readingReports < 20)
    }
}
