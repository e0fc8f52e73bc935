import BookscanTestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import ImageKit
import ScanProtocol
import ScanService
import Testing

/// The upload route's rules — status codes, error bodies, the token, the byte, pixel, queue and decode limits —
/// in process (`InProcessService`: no socket, no workers, so an accepted job stays queued). What needs a
/// connection or a worker (a streamed body cut off mid-stream, `100 Continue`, a scan that runs, a decode
/// held while another upload arrives) stays on the real server in `UploadTests`, `UploadBombTests` and
/// `AbuseBodyTests`.
@Suite("PUT /v1/scans/{jobId}: the rules, in process")
struct InProcessUploadRuleTests {
    @Test("the same jobId with different bytes is 409 job_conflict; the same bytes again are the same job")
    func conflict() async throws {
        try await InProcessService().test { service in
            let id = UUID()
            let jpeg = try SyntheticShelf.jpeg(seed: 1)
            let first = try await service.put(id, jpeg)
            #expect(first.status == .accepted)
            let created = try WireCoding.decode(JobSnapshot.self, from: first.bytes)
            #expect(created.jobId == id && created.links.events == Routes.events(id, after: 0))
            let same = try await service.put(id, jpeg)
            #expect(same.status == .accepted)
            #expect(try WireCoding.decode(JobSnapshot.self, from: same.bytes).createdAt == created.createdAt)
            let other = try await service.put(id, try SyntheticShelf.jpeg(seed: 2))
            #expect(other.status == .conflict)
            #expect(other.errorBody?.code == .jobConflict)
        }
    }

    @Test("continueAfter=N numbers the new job from N + 1; the same job again keeps its numbers; a bad value is 400")
    func continueAfter() async throws {
        try await InProcessService().test { service in
            let id = UUID()
            let jpeg = try SyntheticShelf.jpeg()
            let put = try await service.send(.put, Routes.upload(id, continuingAfter: 7), body: jpeg)
            #expect(put.status == .accepted)
            #expect(try WireCoding.decode(JobSnapshot.self, from: put.bytes).seq == 8)
            let again = try await service.send(.put, Routes.upload(id, continuingAfter: 100), body: jpeg)
            #expect(again.status == .accepted)
            #expect(try WireCoding.decode(JobSnapshot.self, from: again.bytes).seq == 8)
            for bad in ["-1", "x", "99999999999999999999", "2147483648"] {
                let id = UUID()
                let response = try await service.send(.put, Routes.scan(id) + "?\(ProtocolNames.continueAfterQuery)=\(bad)", body: jpeg)
                #expect(response.status == .badRequest, "\(bad)")
                #expect(response.errorBody?.code == .badRequest, "\(bad)")
                #expect(try await service.snapshot(id) == nil, "\(bad)")
            }
        }
    }

    @Test("a job id that is not a UUID is 400 bad_job_id, not retryable")
    func badJobId() async throws {
        try await InProcessService().test { service in
            let response = try await service.send(.put, Routes.scansPrefix + "/not-a-uuid", body: try SyntheticShelf.jpeg())
            #expect(response.status == .badRequest)
            #expect(response.errorBody?.code == .badJobId)
            #expect(response.errorBody?.retryable == false)
        }
    }

    @Test("with a token, a missing or wrong bearer token is 401 unauthorized and the right one passes; /healthz is open")
    func authentication() async throws {
        try await InProcessService(ServiceConfiguration(token: "s3cret-token")).test { service in
            let missing = try await service.send(.get, Routes.limits, token: "")
            #expect(missing.status == .unauthorized)
            #expect(missing.errorBody?.code == .unauthorized)
            #expect(try await service.send(.get, Routes.limits, token: "wrong").status == .unauthorized)
            #expect(try await service.send(.get, Routes.limits).status == .ok)
            #expect(try await service.send(.get, Routes.health, token: "").status == .ok)
            let id = UUID()
            #expect(try await service.put(id, try SyntheticShelf.jpeg(), token: "").status == .unauthorized)
            #expect(try await service.put(id, try SyntheticShelf.jpeg(), token: "wrong").status == .unauthorized)
            #expect(try await service.snapshot(id) == nil)
            #expect(try await service.put(id, try SyntheticShelf.jpeg()).status == .accepted)
        }
    }

    @Test("a body over the byte limit is 413 payload_too_large and no job exists")
    func tooLarge() async throws {
        try await InProcessService(ServiceConfiguration(maxBytes: 64 * 1024)).test { service in
            let id = UUID()
            let big = try SyntheticShelf.jpeg(width: 1600, height: 1200) + [UInt8](repeating: 0, count: 200_000)
            let response = try await service.put(id, big)
            #expect(response.status == .contentTooLarge)
            #expect(response.errorBody?.code == .payloadTooLarge)
            #expect(try await service.snapshot(id) == nil)
        }
    }

    @Test("non-JPEG bytes are 415 naming what they are, judged by magic bytes not by Content-Type")
    func notAJPEG() async throws {
        try await InProcessService().test { service in
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 100)
            let response = try await service.put(UUID(), png)
            #expect(response.status == .unsupportedMediaType)
            #expect(response.errorBody?.code == .unsupportedMediaType)
            #expect(response.errorBody?.message.contains("PNG") == true)
        }
    }

    @Test("undecodable JPEG data is 422 undecodable_image")
    func undecodable() async throws {
        try await InProcessService().test { service in
            let garbage: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + (0..<500).map { UInt8(truncatingIfNeeded: $0 &* 97) }
            let response = try await service.put(UUID(), garbage)
            #expect(response.status == .unprocessableContent)
            #expect(response.errorBody?.code == .undecodableImage)
        }
    }

    @Test("a 60000×60000 header is refused with 422 too_many_pixels before any pixel is allocated")
    func tooManyPixels() async throws {
        try await InProcessService().test { service in
            let response = try await service.put(UUID(), try HugeHeaderJPEG.make(width: 60000, height: 60000))
            #expect(response.status == .unprocessableContent)
            #expect(response.errorBody?.code == .tooManyPixels)
        }
    }

    @Test("a full queue is 503 queue_full, retryable, with Retry-After; a job already queued is still the same job")
    func queueFull() async throws {
        // No workers in process: the one queued job keeps the only place.
        try await InProcessService(ServiceConfiguration(queueCapacity: 1)).test { service in
            let queued = UUID()
            let jpeg = try SyntheticShelf.jpeg(seed: 0)
            #expect(try await service.put(queued, jpeg).status == .accepted)
            for seed in 1..<3 {
                let response = try await service.put(UUID(), try SyntheticShelf.jpeg(seed: seed))
                #expect(response.status == .serviceUnavailable)
                #expect(response.errorBody?.code == .queueFull)
                #expect(response.errorBody?.retryable == true)
                #expect(response.headers[.retryAfter] == "\(ServiceConfiguration.defaultRetryAfterSeconds)")
            }
            #expect(try await service.put(queued, jpeg).status == .accepted)
        }
    }

    @Test("GET /v1/limits tells the byte and pixel limits, the protocol version and the accepted types")
    func limits() async throws {
        try await InProcessService(ServiceConfiguration(maxBytes: 1234, maxPixels: 5678)).test { service in
            let limits = try WireCoding.decode(ServiceLimits.self, from: try await service.send(.get, Routes.limits).bytes)
            #expect(limits.maxBytes == 1234)
            #expect(limits.maxPixels == 5678)
            #expect(limits.protocolVersion == 1)
            #expect(limits.acceptedTypes == ["image/jpeg"])
        }
    }

    @Test("a scan bomb is 422 saying how many scans it has; an arithmetic-coded one and one whose first scan is corrupt too; no job exists")
    func decodeBombs() async throws {
        let bombs: [(jpeg: [UInt8], says: String)] = [
            (UploadBombTests.bomb, "1000 scans, over the limit of \(JPEGDecodeLimits.defaultMaxScans)"),
            (ScanBombJPEG.make(width: 7071, height: 7071, scans: 32, arithmetic: true), "arithmetic-coded"),
            (ScanBombJPEG.warningThenError(width: 7071, height: 7071), "huffman code"),
        ]
        try await InProcessService().test { service in
            for bomb in bombs {
                let id = UUID()
                let response = try await service.put(id, bomb.jpeg)
                #expect(response.status == .unprocessableContent, "\(bomb.says)")
                #expect(response.errorBody?.code == .undecodableImage, "\(bomb.says)")
                #expect(response.errorBody?.message.lowercased().contains(bomb.says) == true, "\(response.errorBody?.message ?? "")")
                #expect(try await service.snapshot(id) == nil, "\(bomb.says)")
            }
        }
    }

    @Test("the check's decode is counted: one needing more than the whole upload budget is 422; one that fits is accepted again and again")
    func decodeCountedAndReleased() async throws {
        // 1.5 MiB: one 640×480 progressive check (0.9 MB of coefficients, the body, the 1/8 pixels) fits, two do not.
        try await InProcessService(ServiceConfiguration(maxBytes: 1 << 20, uploadMemory: 3 << 19)).test { service in
            let refused = try await service.put(UUID(), try UploadBombTests.progressivePhoto(width: 1200, height: 1200))
            #expect(refused.status == .unprocessableContent)
            #expect(refused.errorBody?.code == .undecodableImage)
            #expect(refused.errorBody?.message.contains("of memory, over the limit of 2 MB") == true, "\(refused.errorBody?.message ?? "")")
            // Had any check kept its reservation, the next one would not fit (503).
            for seed in 0..<3 {
                #expect(try await service.put(UUID(), try UploadBombTests.progressivePhoto(seed: seed)).status == .accepted)
                #expect(try await service.put(UUID(), UploadBombTests.bomb).status == .unprocessableContent)
            }
        }
    }
}
