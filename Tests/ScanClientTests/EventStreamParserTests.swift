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
        let text = EventStreamWire.opening + EventStreamWire.message(seq: 7, frameJSON: #"{"a":1}"#) + EventStreamWire.heartbeat(latestSeq: 7)
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
        #expect(items.contains(.comment("heartbeat 7")))
        #expect(parser.lastEventId == "8")
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
}
