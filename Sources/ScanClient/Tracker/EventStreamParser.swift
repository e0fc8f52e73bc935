import Foundation

/// An incremental Server-Sent Events parser (the WHATWG "event stream interpretation"): bytes in,
/// complete messages out. Lines end with LF, CR or CRLF (also split across chunks); `data:` lines
/// join with LF; a comment line (`:`) is handed over as a comment (the SSE heartbeat is one); a blank
/// line dispatches a message that has data.
/// Written here because the one Swift SSE client in reach (mattt/EventSource 1.1.1) does not build
/// on Linux (it needs `URLSession.bytes`).
package struct EventStreamParser: Sendable {
    /// What a chunk completed: a message, or a comment line (its text after the colon, trimmed); or
    /// `overflow`, once, when a line or a message grew past `maxMessageBytes` (nothing is parsed after it).
    package enum Item: Sendable, Equatable {
        case message(Message)
        case comment(String)
        case overflow
    }

    /// The most bytes one message (its lines together) or one line may hold by default: far above any
    /// event of protocol v1 (a 172-book result is under 80 KB), far below what would hurt the client.
    package static let defaultMaxMessageBytes = 4 << 20

    /// One dispatched message.
    package struct Message: Sendable, Equatable {
        package var id: String?
        /// The `event:` type; nil means the default type `message`.
        package var event: String?
        package var data: String

        package init(id: String?, event: String?, data: String) {
            self.id = id
            self.event = event
            self.data = data
        }
    }

    /// The cap on a line and on a message's data (see `Item.overflow`).
    package let maxMessageBytes: Int
    /// Whether the stream went past `maxMessageBytes`; the parser then ignores the rest.
    package private(set) var overflowed = false
    private var dataBytes = 0
    private var line: [UInt8] = []
    private var afterCR = false
    private var id: String?
    private var event: String?
    private var data: [String] = []
    private var sawData = false
    private var atStart = true
    /// The last `id:` seen (what a client would send as `Last-Event-ID`).
    package private(set) var lastEventId: String?
    /// The last valid `retry:` in milliseconds.
    package private(set) var retryMilliseconds: Int?

    package init(maxMessageBytes: Int = EventStreamParser.defaultMaxMessageBytes) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// Feeds a chunk; returns the messages and comments it completed, in order (ending with
    /// `overflow` when the chunk took a line or a message past the cap).
    package mutating func consume(_ bytes: some Sequence<UInt8>) -> [Item] {
        var messages: [Item] = []
        guard !overflowed else { return messages }
        for byte in bytes {
            guard line.count + dataBytes < maxMessageBytes else {
                overflowed = true
                line.removeAll()
                data.removeAll()
                messages.append(.overflow)
                return messages
            }
            switch byte {
            case 0x0A where afterCR:
                afterCR = false  // the LF of a CRLF
            case 0x0A, 0x0D:
                afterCR = byte == 0x0D
                if let item = endLine() { messages.append(item) }
            default:
                afterCR = false
                line.append(byte)
            }
        }
        return messages
    }

    private mutating func endLine() -> Item? {
        defer { line.removeAll(keepingCapacity: true) }
        if atStart, line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }  // a leading BOM
        atStart = false
        guard !line.isEmpty else { return dispatch().map(Item.message) }
        guard line.first != UInt8(ascii: ":") else {
            return .comment(String(decoding: line.dropFirst(), as: UTF8.self).trimmingCharacters(in: .whitespaces))
        }
        let text = String(decoding: line, as: UTF8.self)
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            field = Substring(text)
            value = ""
        }
        switch field {
        case "event": event = String(value)
        case "data":
            dataBytes += value.utf8.count + 1
            data.append(String(value))
            sawData = true
        case "id" where !value.contains("\0"): id = String(value)
        case "retry":
            if !value.isEmpty, value.allSatisfy(\.isASCIIDigit), let milliseconds = Int(value) { retryMilliseconds = milliseconds }
        default: break
        }
        return nil
    }

    private mutating func dispatch() -> Message? {
        defer {
            event = nil
            data.removeAll()
            dataBytes = 0
            sawData = false
        }
        if let id { lastEventId = id }
        guard sawData else { return nil }
        return Message(id: lastEventId, event: event, data: data.joined(separator: "\n"))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
