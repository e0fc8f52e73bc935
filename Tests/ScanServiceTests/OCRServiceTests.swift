import Foundation
import ScanClient
import ScanEngine
import ScanProtocol
import ScanService
import SpineReading
import Testing

/// The service's OCR: reported on /healthz, titles in results, and no start without language data.
@Suite("Scan service OCR")
struct OCRServiceTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../SampleImages").standardized

    @Test("/healthz names the OCR engine, its version and language; a scan's books carry titles, and its result names the same reader")
    func healthAndTitles() async throws {
        let harness = try await ServiceHarness.start(readsTitles: true)
        let health = try await harness.health()
        let ocr = try #require(health.ocr)
        // The default: combined with PP-OCR's models installed (always under CI), else Tesseract alone.
        if ocr.engine == RecognizerKind.combined.rawValue {
            #expect(ocr.language == "eng + ch+en")
            #expect(ocr.version.hasPrefix("tesseract 5.") && ocr.version.contains("+ ppocr PP-OCRv6"))
        } else {
            #expect(ocr.engine == "tesseract" && ocr.language == "eng" && ocr.version.hasPrefix("5."))
        }
        if ProcessInfo.processInfo.environment["CI"] == "true" { #expect(ocr.engine == RecognizerKind.combined.rawValue) }
        let jobId = UUID()
        let jpeg = [UInt8](try Data(contentsOf: Self.samples.appendingPathComponent("shelf_one_row.jpg")))
        let put = try await harness.put(jobId, jpeg)
        #expect((200..<300).contains(put.status))
        let snapshot = try await harness.waitForTerminal(jobId)
        await harness.stop()
        let result = try #require(snapshot?.result)
        #expect(result.spines.contains { $0.title != nil })
        #expect(result.timings.contains { $0.stage == .readingTitles })
        #expect(result.reader != nil && result.reader == health.ocr)
    }

    @Test("a result's reader survives the wire; a result without one (an older server, reading off) decodes as nil")
    func readerOnTheWire() throws {
        let reader = OCREngineStatus(engine: "ppocr", version: "PP-OCRv6 small", language: "ch+en")
        let result = ScanResult(imageWidth: 10, imageHeight: 10, workingWidth: 10, workingHeight: 10, rows: [], spines: [], timings: [], reader: reader)
        #expect(try WireCoding.decode(ScanResult.self, from: WireCoding.encode(result)).reader == reader)
        let old = Data(#"{"imageWidth":1,"imageHeight":1,"workingWidth":1,"workingHeight":1,"rows":[],"spines":[],"timings":[]}"#.utf8)
        #expect(try WireCoding.decode(ScanResult.self, from: old).reader == nil)
    }

    @Test("a service without its language data refuses to start, saying which data is missing")
    func missingLanguageData() async throws {
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("no-tessdata-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: empty) }
        var configuration = ServiceConfiguration()
        configuration.engine.titles = .recognizer(nil, OCRSettings(dataPath: empty.path, language: "eng"))
        await #expect(throws: SpineReadingError.languageDataMissing(language: "eng", dataPath: empty.path)) {
            _ = try await EmbeddedScanService.start(configuration: configuration)
        }
    }

    @Test("readsTitles turns title reading off and on again, and keeps a recognizer already chosen")
    func readsTitlesToggle() {
        var configuration = ServiceConfiguration()
        #expect(configuration.readsTitles)
        configuration.readsTitles = false
        #expect(!configuration.readsTitles)
        if case .off = configuration.engine.titles {} else { Issue.record("titles still read: \(configuration.engine.titles)") }
        configuration.readsTitles = true
        guard case .recognizer(.none, let settings) = configuration.engine.titles else {
            Issue.record("not the configured recognizer: \(configuration.engine.titles)")
            return
        }
        #expect(settings.language == OCRSettings.defaultLanguage && settings.dataPath == nil)
        configuration.engine.titles = .recognizer(.ppocr, OCRSettings(dataPath: "/data", language: "deu"))
        configuration.readsTitles = true
        guard case .recognizer(.ppocr?, let kept) = configuration.engine.titles else {
            Issue.record("the chosen recognizer was replaced: \(configuration.engine.titles)")
            return
        }
        #expect(kept.language == "deu" && kept.dataPath == "/data")
    }
}
