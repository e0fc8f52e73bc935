import BookscanTestSupport
import Foundation
import ImageKit
import ImagePreparation
import ScanEngine
import ScanProtocol
import SpineReading
import Testing

/// The engine with its reader on the committed sample photos, scored against their ground-truth titles
/// the way evaluate.py scores: boxes matched at IoU ≥ 0.5, titles compared normalised.
@Suite("Titles on SampleImages")
struct SampleTitleTests {
    struct Truth: Decodable {
        struct Book: Decodable {
            var box: [Double]
            var title: String?
            var title_drawn: Bool?
        }
        var width: Int
        var height: Int
        var books: [Book]
    }

    static let names = ["shelf_one_row", "shelf_two_rows", "shelf_three_rows_leaning", "shelf_dark", "shelf_rotated_exif_gps"]

    @Test("most drawn titles are read exactly; nearly every title given is right", arguments: names)
    func titles(name: String) async throws {
        let truth = try JSONDecoder().decode(
            Truth.self, from: Data(contentsOf: ReadingFixtures.samples.appendingPathComponent(name + ".json")))
        let prepared = try ImagePreparer(longSide: 4096).prepare(path: ReadingFixtures.samples.appendingPathComponent(name + ".jpg").path)
        let engine = try ScanEngine(configuration: .init(reader: ShelfReader(pool: try ReadingFixtures.pool.get())))
        let jpeg = prepared.jpeg
        // Five full-resolution OCR scans at once (two reading threads each) would load the 2 cores enough
        // to distort the fault campaign's timing: they take turns with it.
        let (result, stages) = try await HeavyTests.gate.run {
            try await onThread {
                var stages: [ScanStage] = []
                let result = try engine.scan(jpeg: jpeg, maxPixels: 50_000_000, progress: { stage, _ in stages.append(stage) }, isCancelled: { false })
                return (result, stages)
            }
        }
        #expect(stages.contains(.readingTitles))
        #expect(result.timings.contains { $0.stage == .readingTitles })
        var exact = 0, drawn = 0, given = 0, right = 0
        let allTitles = Set(truth.books.compactMap(\.title).map(ReadingFixtures.normalized))
        for spine in result.spines {
            guard let title = spine.title else { continue }
            given += 1
            if allTitles.contains(ReadingFixtures.normalized(title)) { right += 1 }
            #expect(spine.textConfidence.map { (0...1).contains($0) } == true)
            #expect(spine.orientation != nil)
        }
        for book in truth.books where book.title_drawn == true {
            drawn += 1
            let best = result.spines.max {
                Self.iou(book.box, $0.box.pixels(width: truth.width, height: truth.height))
                    < Self.iou(book.box, $1.box.pixels(width: truth.width, height: truth.height))
            }
            guard let best, Self.iou(book.box, best.box.pixels(width: truth.width, height: truth.height)) >= 0.5 else { continue }
            if ReadingFixtures.normalized(best.title) == ReadingFixtures.normalized(book.title) { exact += 1 }
        }
        let recall = Double(exact) / Double(max(1, drawn))
        let precision = Double(right) / Double(max(1, given))
        // Regression floors at what the reader reaches today on these samples with a margin (lowest sample:
        // recall 0.21, precision 0.72). The product goals (≥ 40 % exact, ≥ 85 % bag precision on
        // ../shared/eval) are measured in BENCHMARKS.md and not yet met (issue 13 stays open).
        #expect(recall >= 0.15, "\(name): \(exact) of \(drawn) drawn titles read exactly")
        #expect(precision >= 0.6, "\(name): \(right) of \(given) titles given are on the shelf")
    }

    static func iou(_ a: [Double], _ b: [Double]) -> Double {
        let ix = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
        let iy = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
        let union = a[2] * a[3] + b[2] * b[3] - ix * iy
        return union > 0 ? ix * iy / union : 0
    }
}
