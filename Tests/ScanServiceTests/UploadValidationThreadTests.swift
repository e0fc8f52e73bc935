import BookscanTestSupport
import Foundation
import NIOConcurrencyHelpers
import ScanClient
import ScanService
import Testing

@Suite("upload validation")
struct UploadValidationThreadTests {
    @Test("an upload's JPEG check runs on the blocking thread pool, not the cooperative pool that serves requests")
    func validationOffThePool() async throws {
        let threads = NIOLockedValueBox<[String]>([])
        let configuration = ServiceConfiguration().injecting(
            FaultSeams(observeValidation: { threads.withLockedValue { $0.append(Thread.current.name ?? "") } }))
        try await ServiceHarness.with(configuration) { harness throws in
            #expect(try await harness.put(UUID(), try SyntheticShelf.jpeg()).status == 202)
            // A bad upload is still refused with 422, from the same off-pool check.
            let garbage: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + (0..<500).map { UInt8(truncatingIfNeeded: $0 &* 97) }
            #expect(try await harness.put(UUID(), garbage).status == 422)
            // Too many pixels: refused from the header inside the same single decode call.
            #expect(try await harness.put(UUID(), try HugeHeaderJPEG.make(width: 60000, height: 60000)).status == 422)
            let seen = threads.withLockedValue { $0 }
            #expect(seen.count == 3)
            // NIOThreadPool names its threads "…TP-#n" (the singleton "SGLTN-TP-#n"); cooperative-pool threads have no such name.
            #expect(seen.allSatisfy { $0.contains("TP-#") }, "\(seen)")
        }
    }
}
