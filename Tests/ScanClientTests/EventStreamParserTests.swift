import Foundation
import ScanClient
import ScanProtocol
import Testing

/// The client's Server-Sent Events parser against the stream interpretation rules, chunk by chunk.
@Suite("EventStreamParser")
struct EventStreamParserTests {
    typealias Item = EventStreamParser.Item

    func messages(_ items: [Item]) -> [EventStreamParser.Message] {
        items.compactMap { if case .message(let m) = $0 { m } else { nil } }
    }

    @Test("what the server writes parses back: retry, comments, id, event and data, in every chunking", arguments: [1, 2, 3, 7, 1000])
    func serverOutput(chunk: Int) {
        let text = EventStreamWire.opening + EventStreamWire.message(seq: 7, frameJSON: #"{"a":1}"#) + EventStreamWire.heartbeat(latestSeq: 7, at: Date(timeIntervalSince1970: 1_764_262_800.123))
            + EventStreamWire.message(seq: 8, frameJSON: "x\ny")
        var parser = EventStreamParser()
        var items: [Item] = []
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            items += parser.consume(bytes.prefix(chunk))
            bytes = bytes.dropFirst(chunk)
        }
        #expect(parser.retryMilliseconds == EventStreamWire.retryMilliseconds)
        #expect(messages(items) == [.init(id: "7", event: "event", data: #"{"a":1}"#), .init(id: "8", event: "event", data: "x\ny")])
        #expect(items.contains(.comment("heartbeat 7 1764262800123")))
        #expect(parser.lastEventId == "8")
    }

    @Test("a heartbeat comment reads back as the latest seq and the server's time; an older server's (no time) and unreadable fields are absent, other comments are no heartbeat")
    func heartbeatFields() throws {
        let time = Date(timeIntervalSince1970: 1_764_262_800.123)
        let written = EventStreamWire.heartbeat(latestSeq: 12, at: time)
        #expect(written == ": heartbeat 12 1764262800123\n\n")
        let fields = try #require(EventStreamWire.heartbeatFields(String(written.dropFirst(2).prefix { $0 != "\n" })))
        #expect(fields.latestSeq == 12)
        #expect(abs((fields.timestamp ?? .distantPast).timeIntervalSince(time)) < 0.001)
        let old = try #require(EventStreamWire.heartbeatFields("heartbeat 5"))
        #expect(old.latestSeq == 5 && old.timestamp == nil)
        let garbled = try #require(EventStreamWire.heartbeatFields("heartbeat x 99999999999999999999"))
        #expect(garbled.latestSeq == nil && garbled.timestamp == nil)
        #expect(EventStreamWire.heartbeatFields("bookscan events v1") == nil)
        #expect(EventStreamWire.heartbeat(latestSeq: 1, at: Date(timeIntervalSince1970: .infinity)) == ": heartbeat 1\n\n")
    }

    @Test("CR, LF and CRLF line ends (CRLF split between chunks), a leading BOM, fields without a space or value")
    func lineEnds() {
        var parser = EventStreamParser()
        var items = parser.consume([0xEF, 0xBB, 0xBF] + Array("data:a\r".utf8))
        items += parser.consume(Array("\ndata\rid: 3\r\n\r\n".utf8))
        items += parser.consume(Array("data: b\n\n".utf8))
        #expect(messages(items) == [.init(id: "3", event: nil, data: "a\n"), .init(id: "3", event: nil, data: "b")])
    }

    @Test("a block without data dispatches nothing; an unknown field and a bad retry are ignored; an incomplete message waits")
    func ignored() {
        var parser = EventStreamParser()
        #expect(messages(parser.consume(Array("event: x\nid: 1\n\nfoo: bar\nretry: 12a\n\ndata: half".utf8))).isEmpty)
        #expect(parser.retryMilliseconds == nil)
        #expect(messages(parser.consume(Array("\n\n".utf8))) == [.init(id: "1", event: nil, data: "half")])
    }

    @Test("a line or a message past the cap ends in one overflow, and nothing after it is parsed; under the cap all passes")
    func overflow() {
        var parser = EventStreamParser(maxMessageBytes: 64)
        // A message of three data lines, 60 bytes together, passes.
        var items = parser.consume(Array("data: \(String(repeating: "a", count: 18))\ndata: \(String(repeating: "b", count: 18))\n\n".utf8))
        #expect(messages(items).count == 1)
        // One line that never ends (a hostile or broken stream) stops at the cap.
        items = parser.consume(Array(repeating: UInt8(ascii: "x"), count: 100))
        #expect(items == [.overflow])
        #expect(parser.overflowed)
        #expect(parser.consume(Array("data: late\n\n".utf8)).isEmpty)
        // Many short data lines that together pass the cap overflow too.
        var lines = EventStreamParser(maxMessageBytes: 64)
        let many = lines.consume(Array(String(repeating: "data: 0123456789\n", count: 10).utf8))
        #expect(many == [.overflow])
    }
}
