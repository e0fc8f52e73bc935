import BookscanTestSupport
import Foundation
import ImageKit
import ImagePreparation
import ScanEngine
import ScanProtocol
import Testing

/// The engine on the committed sample photos, scored against their ground truth the way
/// `../shared/eval/evaluate.py` scores: greedy one-to-one matching at box IoU ≥ 0.5.
@Suite("ScanEngine on SampleImages")
struct SampleImageTests {
    struct Truth: Decodable {
        struct Book: Decodable { var box: [Double] }
        var width: Int
        var height: Int
        var n_rows: Int
        var books: [Book]
    }

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../SampleImages").standardized
    static let names = ["shelf_one_row", "shelf_two_rows", "shelf_three_rows_leaning", "shelf_dark", "shelf_rotated_exif_gps"]

    @Test("rows exact; spine precision and recall ≥ 0.8 against ground truth", arguments: names)
    func sample(name: String) async throws {
        let truth = try JSONDecoder().decode(Truth.self, from: Data(contentsOf: Self.directory.appendingPathComponent(name + ".json")))
        // What the client uploads: upright (EXIF applied), metadata stripped, original size kept.
        let prepared = try ImagePreparer(longSide: 4096).prepare(path: Self.directory.appendingPathComponent(name + ".jpg").path)
        #expect(prepared.width == truth.width && prepared.height == truth.height)
        let jpeg = prepared.jpeg
        let result = try await onThread { try ScanEngine().scan(jpeg: jpeg, maxPixels: 50_000_000, progress: { _, _ in }, isCancelled: { false }) }
        #expect(result.rows.count == truth.n_rows)
        let predicted = result.spines.map { $0.box.pixels(width: truth.width, height: truth.height) }
        let matched = Self.greedyMatches(truth.books.map(\.box), predicted, threshold: 0.5)
        let recall = Double(matched) / Double(truth.books.count)
        let precision = Double(matched) / Double(max(1, predicted.count))
        #expect(recall >= 0.8, "recall \(recall) (\(matched)/\(truth.books.count))")
        #expect(precision >= 0.8, "precision \(precision) (\(matched)/\(predicted.count))")
    }

    static func iou(_ a: [Double], _ b: [Double]) -> Double {
        let ix = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
        let iy = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
        let inter = ix * iy
        let union = a[2] * a[3] + b[2] * b[3] - inter
        return union > 0 ? inter / union : 0
    }

    static func greedyMatches(_ truth: [[Double]], _ predicted: [[Double]], threshold: Double) -> Int {
        var pairs: [(Double, Int, Int)] = []
        for (g, t) in truth.enumerated() {
            for (p, box) in predicted.enumerated() {
                let score = iou(t, box)
                if score >= threshold { pairs.append((score, g, p)) }
            }
        }
        pairs.sort { $0.0 > $1.0 }
        var usedTruth = Set<Int>(), usedPredicted = Set<Int>()
        for (_, g, p) in pairs where !usedTruth.contains(g) && !usedPredicted.contains(p) {
            usedTruth.insert(g)
            usedPredicted.insert(p)
        }
        return usedTruth.count
    }
}

@Suite("ScanEngine and EXIF")
struct EngineOrientationTests {
    @Test("a raw upload with EXIF orientation 6 is scanned upright: same rows and spines as the prepared one")
    func rawRotatedUpload() async throws {
        let url = SampleImageTests.directory.appendingPathComponent("shelf_rotated_exif_gps.jpg")
        let raw = [UInt8](try Data(contentsOf: url))
        let prepared = try ImagePreparer(longSide: 4096).prepare(path: url.path)
        let jpeg = prepared.jpeg
        let (fromRaw, fromPrepared) = try await onThread {
            (
                try ScanEngine().scan(jpeg: raw, maxPixels: 50_000_000, progress: { _, _ in }, isCancelled: { false }),
                try ScanEngine().scan(jpeg: jpeg, maxPixels: 50_000_000, progress: { _, _ in }, isCancelled: { false })
            )
        }
        #expect(fromRaw.imageWidth == prepared.width && fromRaw.imageHeight == prepared.height)
        #expect(fromRaw.rows.count == fromPrepared.rows.count)
        #expect(abs(fromRaw.spines.count - fromPrepared.spines.count) <= 2)
    }
}
