import BookscanTestSupport
import Foundation
import ImageKit
import ScanProtocol
import ScanClient
import ScanService
import Testing

@Suite("PUT /v1/scans/{jobId}")
struct UploadTests {
    @Test("the same jobId with the same bytes is one job and one scan")
    func idempotentPut() async throws {
        try await ServiceHarness.with { harness in
            let jpeg = try SyntheticShelf.jpeg()
            let id = UUID()
            let first = try await harness.put(id, jpeg)
            #expect(first.status == 202)
            let firstSnapshot = try WireCoding.decode(JobSnapshot.self, from: Data(first.body))
            #expect(firstSnapshot.jobId == id)
            #expect(firstSnapshot.links.events == Routes.events(id, after: 0))
            _ = try #require(try await harness.waitForTerminal(id))
            let second = try await harness.put(id, jpeg)
            #expect(second.status == 202)
            let secondSnapshot = try WireCoding.decode(JobSnapshot.self, from: Data(second.body))
            #expect(secondSnapshot.createdAt == firstSnapshot.createdAt)
            #expect(secondSnapshot.state == .succeeded)
            let health = try await harness.health()
            #expect(health.scansStarted == 1)
            #expect(health.jobsHeld == 1)
        }
    }

    @Test("a resubmission with continueAfter=N numbers the new job's events from N + 1; an existing job is unchanged; a bad value is 400")
    func continueAfter() async throws {
        try await ServiceHarness.with { harness in
            let id = UUID()
            let jpeg = try SyntheticShelf.jpeg()
            let put = try await harness.request("PUT", Routes.upload(id, continuingAfter: 7), body: jpeg)
            #expect(put.status == 202)
            #expect(try WireCoding.decode(JobSnapshot.self, from: Data(put.body)).seq == 8)
            let events = try await harness.collectEvents(id).events
            #expect(events.first?.seq == 8 && events.first?.state == .queued, "\(events.map(\.seq))")
            #expect(events.map(\.seq) == Array(8..<(8 + events.count)))
            #expect(events.last?.state == .succeeded)
            // Replay after a seq inside the range, as a reconnect would.
            let replay = try await harness.collectEvents(id, after: 9).events
            #expect(replay.map(\.seq) == Array(10..<(8 + events.count)))
            // The same job again with another continueAfter: the idempotent PUT leaves it as it is.
            let again = try await harness.request("PUT", Routes.upload(id, continuingAfter: 100), body: jpeg)
            #expect(again.status == 202)
            #expect(try WireCoding.decode(JobSnapshot.self, from: Data(again.body)).seq == events.last?.seq)
            for bad in ["-1", "x", "99999999999999999999", "2147483648"] {
                let response = try await harness.request("PUT", Routes.scan(UUID()) + "?\(ProtocolNames.continueAfterQuery)=\(bad)", body: jpeg)
                #expect(response.status == 400, "\(bad)")
                #expect(response.errorBody?.code == .badRequest, "\(bad)")
            }
        }
    }

    @Test("the same jobId with different bytes is 409")
    func conflict() async throws {
        try await ServiceHarness.with { harness in
            let id = UUID()
            #expect(try await harness.put(id, try SyntheticShelf.jpeg(seed: 1)).status == 202)
            let response = try await harness.put(id, try SyntheticShelf.jpeg(seed: 2))
            #expect(response.status == 409)
            #expect(response.errorBody?.code == .jobConflict)
            #expect(try await harness.health().scansStarted <= 1)
        }
    }

    @Test("a job id that is not a UUID is 400 with a JSON error")
    func badJobId() async throws {
        try await ServiceHarness.with { harness in
            let response = try await harness.request("PUT", "/v1/scans/not-a-uuid", body: try SyntheticShelf.jpeg())
            #expect(response.status == 400)
            #expect(response.errorBody?.code == .badJobId)
            #expect(response.errorBody?.retryable == false)
        }
    }

    @Test("with a token, a missing or wrong bearer token is 401 and the right one passes")
    func authentication() async throws {
        try await ServiceHarness.with(.init(token: "s3cret-token")) { harness in
            var anonymous = harness
            anonymous.token = nil
            let missing = try await anonymous.request("GET", Routes.limits)
            #expect(missing.status == 401)
            #expect(missing.errorBody?.code == .unauthorized)
            #expect(try await anonymous.request("GET", Routes.limits, token: "wrong").status == 401)
            #expect(try await harness.request("GET", Routes.limits).status == 200)
            #expect(try await anonymous.request("GET", Routes.health).status == 200)
            let id = UUID()
            #expect(try await anonymous.put(id, try SyntheticShelf.jpeg()).status == 401)
            #expect(try await harness.put(id, try SyntheticShelf.jpeg()).status == 202)
        }
    }

    @Test("a body over the byte limit is 413, declared or streamed")
    func tooLarge() async throws {
        try await ServiceHarness.with(.init(maxBytes: 64 * 1024)) { harness in
            let big = try SyntheticShelf.jpeg(width: 1600, height: 1200) + [UInt8](repeating: 0, count: 200_000)
            let response = try await harness.put(UUID(), big)
            #expect(response.status == 413)
            #expect(response.errorBody?.code == .payloadTooLarge)
        }
    }

    @Test("non-JPEG bytes are 415, judged by magic bytes not by Content-Type")
    func notAJPEG() async throws {
        try await ServiceHarness.with { harness in
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 100)
            let response = try await harness.put(UUID(), png)
            #expect(response.status == 415)
            #expect(response.errorBody?.code == .unsupportedMediaType)
            #expect(response.errorBody?.message.contains("PNG") == true)
        }
    }

    @Test("undecodable JPEG data is 422")
    func undecodable() async throws {
        try await ServiceHarness.with { harness in
            let garbage: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + (0..<500).map { UInt8(truncatingIfNeeded: $0 &* 97) }
            let response = try await harness.put(UUID(), garbage)
            #expect(response.status == 422)
            #expect(response.errorBody?.code == .undecodableImage)
        }
    }

    @Test("a 60000×60000 header is refused with 422 before any pixel is allocated")
    func tooManyPixels() async throws {
        try await ServiceHarness.with { harness in
            let response = try await harness.put(UUID(), try HugeHeaderJPEG.make(width: 60000, height: 60000))
            #expect(response.status == 422)
            #expect(response.errorBody?.code == .tooManyPixels)
        }
    }

    @Test("a full queue is 503 with Retry-After")
    func queueFull() async throws {
        try await ServiceHarness.with(
            .init(workers: 1, queueCapacity: 1).injecting(.init(scanStepDelay: .milliseconds(50)))) { harness in
            var statuses: [Int] = []
            var refused: HTTPResponseDataSummary?
            for seed in 0..<4 {
                let response = try await harness.put(UUID(), try SyntheticShelf.jpeg(seed: seed))
                statuses.append(response.status)
                if response.status == 503 { refused = .init(response) }
            }
            #expect(statuses.prefix(2).allSatisfy { $0 == 202 })
            #expect(statuses.contains(503))
            let summary = try #require(refused)
            #expect(summary.code == .queueFull)
            #expect(summary.retryable)
            #expect(summary.retryAfter == "2")
        }
    }

    @Test("GET /v1/limits tells the byte and pixel limits")
    func limits() async throws {
        try await ServiceHarness.with(.init(maxBytes: 1234, maxPixels: 5678)) { harness in
            let limits = try WireCoding.decode(ServiceLimits.self, from: Data(try await harness.request("GET", Routes.limits).body))
            #expect(limits.maxBytes == 1234)
            #expect(limits.maxPixels == 5678)
            #expect(limits.protocolVersion == 1)
            #expect(limits.acceptedTypes == ["image/jpeg"])
        }
    }
}

struct HTTPResponseDataSummary {
    var code: ErrorCode?
    var retryable: Bool
    var retryAfter: String?

    init(_ response: ScanClient.HTTPResponseData) {
        code = response.errorBody?.code
        retryable = response.errorBody?.retryable ?? false
        retryAfter = response.header("Retry-After")
    }
}

/// A syntactically valid JPEG header declaring any size, with no real image data behind it.
enum HugeHeaderJPEG {
    static func make(width: Int, height: Int) throws -> [UInt8] {
        var bytes = try JPEGEncoder.encode(PixelBuffer(width: 8, height: 8, fill: (9, 9, 9)), quality: 50)
        // Patch the SOF0 frame header's height and width.
        var i = 2
        while i + 9 < bytes.count {
            if bytes[i] == 0xFF, bytes[i + 1] == 0xC0 {
                bytes[i + 5] = UInt8(height >> 8)
                bytes[i + 6] = UInt8(height & 0xFF)
                bytes[i + 7] = UInt8(width >> 8)
                bytes[i + 8] = UInt8(width & 0xFF)
                return bytes
            }
            i += 1
        }
        return bytes
    }
}
