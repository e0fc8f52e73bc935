import ScanClient
import Foundation
import ScanClient
import ScanProtocol
import ScanService
import SpineReading
import Testing

/// The service's OCR: reported on /healthz, titles in results, and no start without language data.
@Suite("Scan service OCR")
struct OCRServiceTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../SampleImages").standardized

    @Test("/healthz names the OCR engine, its version and language; a scan's books carry titles")
    func healthAndTitles() async throws {
        let harness = try await ServiceHarness.start(readsTitles: true)
        let health = try await harness.health()
        #expect(health.ocr?.engine == "tesseract")
        #expect(health.ocr?.language == "eng")
        #expect(health.ocr?.version.hasPrefix("5.") == true)
        let jobId = UUID()
        let jpeg = [UInt8](try Data(contentsOf: Self.samples.appendingPathComponent("shelf_one_row.jpg")))
        let put = try await harness.put(jobId, jpeg)
        #expect((200..<300).contains(put.status))
        let snapshot = try await harness.waitForTerminal(jobId)
        await harness.stop()
        let result = try #require(snapshot?.result)
        #expect(result.spines.contains { $0.title != nil })
        #expect(result.timings.contains { $0.stage == .readingTitles })
    }

    @Test("a service without its language data refuses to start, saying which data is missing")
    func missingLanguageData() async throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("no-tessdata-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        var configuration = ServiceConfiguration()
        configuration.ocr = OCRSettings(dataPath: empty.path, language: "eng")
        await #expect(throws: SpineReadingError.languageDataMissing(language: "eng", dataPath: empty.path)) {
            _ = try await EmbeddedScanService.start(configuration: configuration)
        }
    }
}
