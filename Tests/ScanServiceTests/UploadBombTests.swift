import BookscanTestSupport
import Dispatch
import Foundation
import ImageKit
import ImagePreparation
import NIOConcurrencyHelpers
import ScanClient
import ScanEngine
import ScanProtocol
import ScanService
import Testing

/// JPEG decode bombs: a tiny progressive file declaring a huge image with many almost empty scans (libjpeg
/// walks every block of the image in every scan, at any DCT scale, after allocating the full coefficient
/// buffer). The service refuses one before a job exists (422, in `InProcessUploadRuleTests` with the decode's
/// place in the upload budget), every decoder of the product refuses it; here, on the real server, a progressive
/// photo is scanned and a decode in progress holds its memory against a concurrent upload.
@Suite("upload decode bombs")
struct UploadBombTests {
    /// The file: a 7071×7071 colour header and 1000 scans (about 360 KB).
    static let bomb = ScanBombJPEG.make(width: 7071, height: 7071, components: 3, scans: 1000)

    /// A 640×480 shelf photo encoded progressive (libjpeg's standard progression: 10 scans).
    static func progressivePhoto(width: Int = 640, height: Int = 480, seed: Int = 0) throws -> [UInt8] {
        let shelf = try JPEGDecoder.decode(try SyntheticShelf.jpeg(width: width, height: height, seed: seed))
        return try JPEGEncoder.encode(shelf.image, quality: 90, progressive: true)
    }

    @Test("a progressive photo (10 scans) is accepted and scanned")
    func progressivePhotoAccepted() async throws {
        try await ServiceHarness.with { harness throws in
            let id = UUID()
            #expect(try await harness.put(id, try Self.progressivePhoto()).status == 202)
            #expect(try await harness.waitForTerminal(id)?.state == .succeeded)
        }
    }

    @Test("while a check decodes, its memory is held: a concurrent upload that does not fit beside it is 503 with Retry-After")
    func decodeHeldWhileRunning() async throws {
        let gate = ValidationGate()
        let configuration = ServiceConfiguration(maxBytes: 1 << 20, uploadMemory: 3 << 19)
            .injecting(FaultSeams(observeValidation: { gate.pauseFirst() }))
        try await ServiceHarness.with(configuration) { harness in
            let first = Task { try await harness.put(UUID(), try Self.progressivePhoto(seed: 1)) }
            #expect(try await gate.paused())
            let second = try await harness.put(UUID(), try Self.progressivePhoto(seed: 2))
            gate.resume()
            #expect(second.status == 503)
            #expect(second.errorBody?.code == .queueFull)
            #expect(second.header("retry-after") != nil)
            #expect(try await first.value.status == 202)
        }
    }
}

/// Every decoder of the product refuses the bomb under its default limits, from the markers alone.
@Suite("decode bombs in every decoder")
struct DecodeBombTests {
    static let refusal = ImageError.overLimit(.scans(found: 1000, limit: JPEGDecodeLimits.defaultMaxScans))

    @Test("the worker's decodes (detection's RGB at the working size, reading's gray) refuse the bomb")
    func workerDecodes() throws {
        #expect(throws: Self.refusal) { try JPEGDecoder.decode(UploadBombTests.bomb, minimumLongSide: 1000, maxPixels: 60_000_000) }
        #expect(throws: Self.refusal) { try JPEGDecoder.decodeGray(UploadBombTests.bomb, scaleDenominator: 2, maxPixels: 60_000_000) }
        #expect(throws: ScanEngineError.image(Self.refusal)) {
            try ScanEngine().scan(jpeg: UploadBombTests.bomb, maxPixels: 60_000_000, progress: { _, _ in }, isCancelled: { false })
        }
    }

    @Test("bookscan's prepare refuses the bomb as undecodable (exit code 6), saying why, at any long side")
    func prepareRefuses() throws {
        let path = try TemporaryFiles.write(UploadBombTests.bomb, name: "scan-bomb.jpg")
        for longSide in [1920, 8000] {
            #expect(throws: PrepareError.corrupt(JPEGLimitExceeded.scans(found: 1000, limit: JPEGDecodeLimits.defaultMaxScans).description)) {
                try ImagePreparer(longSide: longSide).prepare(path: path)
            }
        }
    }

    @Test("a valid progression of 32 scans (the limit) decodes; 33 is refused")
    func atTheLimit() throws {
        let atLimit = ScanBombJPEG.make(width: 256, height: 256, scans: JPEGDecodeLimits.defaultMaxScans)
        let gray = try JPEGDecoder.decodeGray(atLimit, scaleDenominator: 1)
        #expect(gray.pixels.allSatisfy { $0 == 128 })
        _ = try JPEGDecoder.decode(atLimit, scaleDenominator: 8, strict: true)
        let over = ScanBombJPEG.make(width: 256, height: 256, scans: JPEGDecodeLimits.defaultMaxScans + 1)
        #expect(throws: ImageError.overLimit(.scans(found: 33, limit: 32))) { try JPEGDecoder.decode(over, scaleDenominator: 8) }
    }
}

/// Holds the first upload check inside the service (after its reservation, before its decode) until the test lets it go.
final class ValidationGate: Sendable {
    private let calls = NIOLockedValueBox(0)
    private let released = DispatchSemaphore(value: 0)

    /// Called by the service on a pool thread for every check; only the first one waits (at most a minute: a hang guard).
    func pauseFirst() {
        let first = calls.withLockedValue { calls in
            calls += 1
            return calls == 1
        }
        guard first else { return }
        _ = released.wait(timeout: .now() + 60)
    }

    /// Whether the first check reached the gate (false after a minute: a hang guard, not a timing assertion).
    func paused() async throws -> Bool {
        let hangGuard = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < hangGuard {
            if calls.withLockedValue({ $0 }) > 0 { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    func resume() { released.signal() }
}
