import BookscanTestSupport
import Foundation
import NIOWebSocket
import ScanClient
import ScanProtocol
import ScanService
import Testing

/// The events route under abuse: refusals are plain HTTP before any upgrade; bad or oversized
/// frames close that socket (1003 / 1009) and nothing else.
@Suite("Abuse: events socket")
struct AbuseWebSocketTests {
    @Test("an upgrade for an unknown job is a plain 404 with the JSON error, no 101")
    func unknownJobUpgrade() async throws {
        try await ServiceHarness.with { harness in
            let (unknown, badId) = try await Self.upgradeResponses(port: harness.service.port, paths: [
                Routes.events(UUID(), after: 0), "/v1/scans/not-a-uuid/events",
            ])
            #expect(statusCode(unknown) == 404)
            #expect(responseBody(unknown).contains(#""not_found""#))
            #expect(statusCode(badId) == 400)
            #expect(responseBody(badId).contains(#""bad_job_id""#))
        }
    }

    @Test("an upgrade with a wrong token is a plain 401, with the right one a 101")
    func unauthorizedUpgrade() async throws {
        try await ServiceHarness.with(.init(token: "tok-1").injecting(.init(scanStepDelay: .milliseconds(50)))) { harness in
            let id = UUID()
            #expect(try await harness.put(id, try SyntheticShelf.jpeg()).status == 202)
            let (wrong, right) = try await Self.upgradeResponses(port: harness.service.port, paths: [
                Routes.events(id, after: 0) + "&access_token=nope", Routes.events(id, after: 0) + "&access_token=tok-1",
            ])
            #expect(statusCode(wrong) == 401)
            #expect(responseBody(wrong).contains(#""unauthorized""#))
            #expect(statusCode(right) == 101)
        }
    }

    @Test("one subscriber over the per-job cap gets 429 before any upgrade; the others get every event")
    func subscriberCap() async throws {
        try await ServiceHarness.with(
            .init(workers: 1, maxSubscribersPerJob: 2).injecting(.init(scanStepDelay: .milliseconds(300)))) { harness in
            let id = UUID()
            #expect(try await harness.put(id, try SyntheticShelf.jpeg()).status == 202)
            let boxes = [TranscriptBox(), TranscriptBox()]
            async let first = harness.collectEvents(id, transcript: boxes[0])
            async let second = harness.collectEvents(id, transcript: boxes[1])
            try await Self.waitUntilLive(boxes)
            let (refused, _) = try await Self.upgradeResponses(port: harness.service.port, paths: [Routes.events(id, after: 0), "/healthz"])
            #expect(statusCode(refused) == 429)
            #expect(responseBody(refused).contains(#""too_many_subscribers""#))
            for transcript in try await [first, second] {
                #expect(transcript.events.map(\.seq) == Array(1...(transcript.events.last?.seq ?? 0)))
                #expect(transcript.events.last?.state == .succeeded)
                #expect(transcript.closeCode == .normalClosure)
            }
        }
    }

    /// One frame as a raw client sends it.
    struct RawFrame: Sendable {
        var opcode: UInt8 = 0x1
        var payload: [UInt8]
        var fin = true
        var declaredLength: Int?
    }

    /// Frames the server must refuse, and the close code it must answer with.
    struct BadFrame: Sendable, CustomTestStringConvertible {
        let name: String
        let frames: [RawFrame]
        let closeCode: UInt16
        var testDescription: String { name }

        static let all: [BadFrame] = [
            .init(name: "invalid UTF-8 text", frames: [.init(payload: [0xFF, 0xFE, 0xC3, 0x28])], closeCode: 1003),
            .init(name: "JSON that is not a client message", frames: [.init(payload: Array(#"{"type":"nope"}"#.utf8))], closeCode: 1003),
            .init(name: "binary", frames: [.init(opcode: 0x2, payload: [0, 1, 2, 3])], closeCode: 1003),
            .init(name: "a 5000-byte message in one frame (over the 4 KiB message limit)", frames: [.init(payload: Array(repeating: 0x61, count: 5000))], closeCode: 1009),
            .init(
                name: "a message fragmented into 3000 + 3000 bytes",
                frames: [.init(payload: Array(repeating: 0x61, count: 3000), fin: false), .init(opcode: 0x0, payload: Array(repeating: 0x61, count: 3000))],
                closeCode: 1009),
            .init(name: "a frame header claiming 1 MiB (over the 16 KiB frame limit)", frames: [.init(payload: Array(repeating: 0x61, count: 64), declaredLength: 1 << 20)], closeCode: 1009),
        ]
    }

    @Test("a bad frame closes that socket with its code; another subscriber of the job gets every event", arguments: BadFrame.all)
    func badFrame(_ frame: BadFrame) async throws {
        // 1 s per progress step: the job is still running when the bad frame arrives however slow the
        // machine (a job that had finished would close the socket normally first); cancelled at the end.
        try await ServiceHarness.with(.init(workers: 1).injecting(.init(scanStepDelay: .seconds(1)))) { harness in
            let id = UUID()
            #expect(try await harness.put(id, try SyntheticShelf.jpeg()).status == 202)
            let box = TranscriptBox()
            async let good = harness.collectEvents(id, transcript: box)
            try await Self.waitUntilLive([box])
            let port = harness.service.port
            let (head, close) = try await onThread {
                let socket = try RawSocket(port: port)
                defer { socket.close() }
                let raw = RawWebSocket(socket: socket)
                let head = raw.handshake(path: Routes.events(id, after: 0)) ?? ""
                raw.send(opcode: 0x1, payload: Array(ClientHello.frame.utf8))
                for part in frame.frames {
                    raw.send(opcode: part.opcode, payload: part.payload, fin: part.fin, declaredLength: part.declaredLength)
                }
                return (head, raw.readUntilClose())
            }
            #expect(statusCode(head) == 101)
            #expect(close.code == frame.closeCode)
            #expect(try await harness.snapshot(id)?.state == .running, "the job ended before the bad frame was judged")
            #expect(try await harness.request("DELETE", Routes.scan(id)).status == 202)
            let transcript = try await good
            #expect(transcript.events.map(\.seq) == Array(1...(transcript.events.last?.seq ?? 0)))
            #expect(transcript.events.last?.state == .canceled)
            #expect(transcript.closeCode == .normalClosure)
            #expect(try await harness.snapshot(id)?.state == .canceled)
        }
    }

    /// Sends a raw upgrade request per path (one connection each) and returns the whole responses
    /// of the first two (a 101 is returned as its head).
    static func upgradeResponses(port: Int, paths: [String]) async throws -> (String, String) {
        let texts = try await onThread {
            try paths.map { path in
                let socket = try RawSocket(port: port)
                defer { socket.close() }
                socket.send(RawWebSocket.upgradeRequest(path: path))
                guard let (head, rest) = socket.readResponseHead() else { return "" }
                if statusCode(head) == 101 { return head }
                // A plain response: read its body (Content-Length) without waiting for a close.
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                var body = rest
                while body.count < length, let more = socket.receive().bytes { body += more }
                return head + "\r\n\r\n" + String(decoding: body, as: UTF8.self)
            }
        }
        return (texts[0], texts.count > 1 ? texts[1] : "")
    }

    /// Waits (bounded) until every socket has received a message, i.e. the server counts it.
    static func waitUntilLive(_ boxes: [TranscriptBox]) async throws {
        for _ in 0..<400 where !boxes.allSatisfy({ !$0.messages.isEmpty }) {
            try await Task.sleep(for: .milliseconds(25))
        }
        #expect(boxes.allSatisfy { !$0.messages.isEmpty }, "a subscriber never received anything")
    }
}
