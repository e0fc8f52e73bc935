import BookscanTestSupport
import Foundation
import ImageKit
import ScanProtocol
import ScanClient
import ScanService
import Testing

/// Uploads on the real server whose jobs run (idempotence across a finished scan, a resubmission's event numbers);
/// the route's rules are in `InProcessUploadRuleTests`.
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

    @Test("a resubmission with continueAfter=N streams the new job's events from N + 1 and replays inside that range; an existing job is unchanged")
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
        }
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
