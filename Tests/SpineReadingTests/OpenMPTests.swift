import Foundation
import ImageKit
import Synchronization
import Testing

@testable import SpineReading

/// Debian's libtesseract runs OpenMP teams inside the LSTM; the reader serialises them on every
/// reading thread (they only oversubscribe two cores and spin). The setting is per thread in libgomp,
/// so it is checked on a fresh thread, as a scan's helper threads are.
@Suite("OpenMP inside Tesseract")
struct OpenMPTests {
    @Test("a thread that reads with a handle runs Tesseract's parallel regions on itself alone")
    func serialisedOnReadingThread() throws {
        typealias GetLevels = @convention(c) () -> Int32
        // libtesseract links libgomp on Debian; without it there is nothing to serialise, and the
        // test says so instead of passing silently.
        let symbol = try #require(dlsym(nil, "omp_get_max_active_levels"), "libgomp is not linked into this process")
        let getLevels = unsafeBitCast(symbol, to: GetLevels.self)
        let engine = try TesseractEngine(settings: .standard)
        let line = GrayImage(try ReadingFixtures.titleLine())
        let seen = Mutex<(before: Int32, after: Int32, words: Int)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let before = getLevels()
            let words = engine.read(line, layout: .singleLine)
            seen.withLock { $0 = (before, getLevels(), words.count) }
            done.signal()
        }
        thread.stackSize = 4 << 20
        thread.start()
        done.wait()
        let result = try #require(seen.withLock { $0 })
        #expect(result.before > 0, "a fresh thread starts with OpenMP's nested teams allowed")
        #expect(result.after == 0)
        #expect(result.words > 0)
    }
}
