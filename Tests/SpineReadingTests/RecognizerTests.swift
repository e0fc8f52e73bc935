import Foundation
import ImageKit
import ScanProtocol
import Testing

@testable import SpineReading

/// The recognizer seam: PP-OCR through the spine reader on rendered lines, the typed errors when its models
/// are missing or broken, and the recognizer choice. The PP-OCR readings need scripts/bootstrap-ppocr's
/// models: without them they are skipped, except under CI=true, where they run and fail.
@Suite("Recognizers")
struct RecognizerTests {
    /// Whether the PP-OCR readings run: the models are installed (or named by BOOKSCAN_PPOCR_MODELS), or CI.
    static let ppocrRuns: Bool = {
        let models = PPOCRModels.configured()
        let present = FileManager.default.fileExists(atPath: (models.directory as NSString).appendingPathComponent("rec.onnx"))
        return present || ProcessInfo.processInfo.environment["CI"] == "true"
    }()

    /// One PP-OCR pool for the suite (the models are loaded once).
    static let ppocr: Result<RecognizerPool, SpineReadingError> = Result { () throws(SpineReadingError) in
        RecognizerPool(.ppocr(try PPOCRPool()))
    }

    /// What PP-OCR reads on `image` as one whole-image spine of `pose`.
    static func readWhole(_ image: PixelBuffer, pose: SpinePose) throws -> SpineText? {
        let reader = ShelfReader(pool: try ppocr.get(), threads: 1)
        let texts = try reader.read(
            .image(image), sourceWidth: image.width, sourceHeight: image.height,
            spines: [SpineOutline(box: ReadingFixtures.wholeImage, pose: pose)], progress: { _, _ in }, isCancelled: { false })
        return texts?.first
    }

    @Test("PP-OCR reads the rendered title line in each direction", .enabled(if: ppocrRuns), arguments: 0..<3)
    func ppocrReadsTitle(index: Int) throws {
        let (_, turn, pose, orientation) = RenderedLineTests.cases[index]
        let text = try Self.readWhole(try ReadingFixtures.titleLine().applying(turn), pose: pose)
        #expect(ReadingFixtures.normalized(text?.title) == "great expectations", "read \(String(describing: text))")
        #expect(text?.orientation == orientation)
    }

    @Test("PP-OCR reads a standing line of the photo the right way round: detected on the photo turned a quarter, read both ways", .enabled(if: ppocrRuns), arguments: 0..<2)
    func ppocrReadsStandingLineOnce(index: Int) throws {
        let (_, turn, _, orientation) = RenderedLineTests.cases[index]
        let photo = GrayImage(try ReadingFixtures.titleLine().applying(turn))
        let lines = try Self.ppocr.get().withSceneTextReader { engine in
            PhotoLineReader().read(photo, turns: [.verticalTopToBottom, .verticalBottomToTop], engine: engine, isCancelled: { false })
        }
        let read = try #require(lines ?? nil)
        let title = read.first { ReadingFixtures.normalized($0.text) == "great expectations" }
        #expect(title?.orientation == orientation, "read \(read.map(\.text))")
    }

    @Test("PP-OCR reads bold capitals the right way round", .enabled(if: ppocrRuns), arguments: 0..<2)
    func ppocrReadsCapitals(index: Int) throws {
        let (_, turn, pose, _) = RenderedLineTests.cases[index]
        let text = try Self.readWhole(try ReadingFixtures.capitalsLine().applying(turn), pose: pose)
        #expect(ReadingFixtures.normalized(text?.title) == "the house of mirth", "read \(String(describing: text))")
    }

    @Test("the PP-OCR pool reports its engine and reuses its handle", .enabled(if: ppocrRuns))
    func ppocrPool() throws {
        let pool = try PPOCRPool()
        #expect(pool.info.engine == "ppocr" && pool.info.version.contains("PP-OCRv6"))
        let reader = ShelfReader(pool: RecognizerPool(.ppocr(pool)), threads: 1)
        let line = try ReadingFixtures.titleLine().applying(.right)
        _ = try reader.read(
            .image(line), sourceWidth: line.width, sourceHeight: line.height,
            spines: [SpineOutline(box: ReadingFixtures.wholeImage, pose: .upright)], progress: { _, _ in }, isCancelled: { false })
        #expect(pool.idleCount == 1)
    }

    @Test("the combined pool reads with Tesseract first, names both engines and gives both handles back", .enabled(if: ppocrRuns))
    func combinedPool() throws {
        let first = try TesseractPool(), second = try PPOCRPool()
        let pool = RecognizerPool(.combined(first, second))
        #expect(pool.kind == .combined)
        #expect(pool.info.engine == "combined" && pool.info.version.hasPrefix("tesseract ") && pool.info.version.contains("PP-OCRv6"))
        let reader = ShelfReader(pool: pool, threads: 1)
        let line = try ReadingFixtures.titleLine().applying(.right)
        let texts = try reader.read(
            .image(line), sourceWidth: line.width, sourceHeight: line.height,
            spines: [SpineOutline(box: ReadingFixtures.wholeImage, pose: .upright)], progress: { _, _ in }, isCancelled: { false })
        #expect(ReadingFixtures.normalized(texts?.first?.title) == "great expectations")
        #expect(first.idleCount == 1 && second.idleCount == 1)
    }

    @Test("missing PP-OCR models are one clear typed error at start-up")
    func missingModels() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("no-ppocr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let expected = SpineReadingError.recognizerModelsMissing(engine: "ppocr", missingFile: directory.appendingPathComponent("det.onnx").path)
        #expect(throws: expected) { try PPOCRPool(models: PPOCRModels(directory: directory.path)) }
        #expect(throws: expected) { try RecognizerPool(kind: .ppocr, models: PPOCRModels(directory: directory.path)) }
        #expect(throws: expected) { try RecognizerPool(kind: .combined, models: PPOCRModels(directory: directory.path)) }
        // The default, not chosen by name, reads with Tesseract alone rather than not at all.
        #expect(try RecognizerPool.standard(models: PPOCRModels(directory: directory.path)).kind == .tesseract)
        #expect(!expected.description.contains("\n") && expected.description.contains("bootstrap-ppocr"))
    }

    @Test("model files that are not models are a load error, not a crash")
    func brokenModels() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bad-ppocr-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in ["det.onnx", "rec.onnx", "dictionary.txt"] {
            try Data("not a model\n".utf8).write(to: directory.appendingPathComponent(name))
        }
        do {
            _ = try PPOCRPool(models: PPOCRModels(directory: directory.path))
            Issue.record("a pool was made from files that are not models")
        } catch {
            guard case .recognizerLoadFailed(let engine, let reason) = error else {
                Issue.record("expected recognizerLoadFailed, got \(error)")
                return
            }
            #expect(engine == "ppocr" && !reason.isEmpty)
        }
    }

    @Test("the recognizer is the default unless BOOKSCAN_RECOGNIZER names another; a wrong name is an error")
    func choice() throws {
        #expect(try RecognizerKind.configured(environment: [:]) == RecognizerKind.standard)
        #expect(try RecognizerKind.configured(environment: [RecognizerKind.environmentVariable: "PPOCR"]) == .ppocr)
        #expect(try RecognizerKind.configured(environment: [RecognizerKind.environmentVariable: "tesseract"]) == .tesseract)
        #expect(try RecognizerKind.configured(environment: [RecognizerKind.environmentVariable: "combined"]) == .combined)
        #expect(throws: SpineReadingError.unknownRecognizer("easyocr")) {
            try RecognizerKind.configured(environment: [RecognizerKind.environmentVariable: "easyocr"])
        }
        #expect(PPOCRModels.configured(environment: [PPOCRModels.environmentVariable: "/models"]).directory == "/models")
        #expect(PPOCRModels.configured(environment: [:], executable: nil).directory == PPOCRModels.installedDirectory)
    }

    @Test("models in share/bookscan/ppocr beside the executable's bin (an installed package) come before the bootstrap's; an incomplete folder there does not")
    func modelsBesideExecutable() throws {
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("bookscan-prefix-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let models = prefix.appendingPathComponent("share/bookscan/ppocr")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        let executable = prefix.appendingPathComponent("bin/bookscan").path
        for file in ["det.onnx", "rec.onnx"] { try Data([1]).write(to: models.appendingPathComponent(file)) }
        #expect(PPOCRModels.configured(environment: [:], executable: executable).directory == PPOCRModels.installedDirectory)
        try Data([1]).write(to: models.appendingPathComponent("dictionary.txt"))
        #expect(PPOCRModels.configured(environment: [:], executable: executable).directory == models.path)
        #expect(PPOCRModels.configured(environment: [PPOCRModels.environmentVariable: "/models"], executable: executable).directory == "/models")
    }
}
