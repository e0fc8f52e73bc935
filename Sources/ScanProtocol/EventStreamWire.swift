public import Foundation

/// Protocol v1's events as Server-Sent Events (the events route with `Accept: text/event-stream`):
/// one SSE message per job event (`id:` its seq, `event:` its type, `data:` the same JSON as the
/// WebSocket frame), a comment line as the heartbeat, `retry:` once at the start. Written by the
/// server, read by the client; the stream ends after the terminal event.
public enum EventStreamWire {
    /// The media type a client asks for (`Accept`) and the server answers with (`Content-Type`).
    public static let mediaType = "text/event-stream"
    /// The header a reconnecting SSE client sends with the last `id:` it received (same as `after=`).
    public static let lastEventIDHeader = "Last-Event-ID"
    /// The reconnection delay the stream announces with `retry:` (the tracker's first backoff step).
    public static let retryMilliseconds = 1000
    /// The SSE event type of a job event (the `type` of the WebSocket frame).
    public static let eventType = "event"
    /// The SSE event types of the multiplexed stream's other messages (the `type` of their WebSocket frames).
    public static let subscribedType = "subscribed"
    public static let refusedType = "refused"
    public static let heartbeatType = "heartbeat"
    /// The comment text of a heartbeat line (`: heartbeat <latestSeq> <server time, Unix ms>`).
    public static let heartbeatComment = "heartbeat"

    /// What a stream starts with, before any event: `retry:` and a comment, so the first bytes
    /// reach the client at once even when there is nothing to replay (a client that sees no byte
    /// in time knows a proxy is buffering the response).
    public static var opening: String { "retry: \(retryMilliseconds)\n: bookscan events v1\n\n" }

    /// One job event as an SSE message; `frameJSON` is the encoded `ServerMessage.event` (the
    /// WebSocket frame text). Lines of the JSON (it has none in the wire encoding) each get their own `data:`.
    public static func message(seq: Int, frameJSON: String) -> String {
        var text = "id: \(seq)\nevent: \(eventType)\n"
        for line in frameJSON.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        return text + "\n"
    }

    /// One message of the multiplexed stream (`/v1/events`): `event:` is the `ServerMessage` type
    /// (`event`, `subscribed`, `refused`, `heartbeat`), `data:` its JSON, and for job events `id:` is
    /// the job's cursor `ID:seq`, the form `jobs=` takes, so a client can resume each job where it was.
    public static func multiplexedMessage(type: String, cursor: JobCursor?, frameJSON: String) -> String {
        var text = cursor.map { "id: \($0.jobId.uuidString.lowercased()):\($0.after)\n" } ?? ""
        text += "event: \(type)\n"
        for line in frameJSON.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
        return text + "\n"
    }

    /// A heartbeat: a comment line that SSE clients ignore but that proves the stream is alive, with
    /// the job's latest seq and the server's time in Unix milliseconds (so a client can tell a stream
    /// that keeps up from one that trickles minutes behind, as a WebSocket heartbeat's timestamp does).
    public static func heartbeat(latestSeq: Int, at time: Date) -> String {
        let milliseconds = (time.timeIntervalSince1970 * 1000).rounded()
        let stamp = milliseconds.isFinite && abs(milliseconds) < 1e15 ? " \(Int64(milliseconds))" : ""
        return ": \(heartbeatComment) \(latestSeq)\(stamp)\n\n"
    }

    /// What a comment line's text says when it is a heartbeat (nil when it is not one): the latest
    /// seq and the server's time, each nil when absent or unreadable (an older server sends no time;
    /// a heartbeat without a readable seq still proves the stream alive).
    public static func heartbeatFields(_ comment: String) -> (latestSeq: Int?, timestamp: Date?)? {
        guard comment.hasPrefix(heartbeatComment) else { return nil }
        let words = comment.dropFirst(heartbeatComment.count).split(separator: " ", omittingEmptySubsequences: true)
        let seq = words.first.flatMap { Int($0) }.flatMap { (0...WireNumbers.maxCount).contains($0) ? $0 : nil }
        let milliseconds = words.dropFirst().first.flatMap { Int64($0) }.flatMap { abs($0) < 1 << 50 ? $0 : nil }
        return (seq, milliseconds.map { Date(timeIntervalSince1970: Double($0) / 1000) })
    }

    /// The seq a client asked to resume after: `Last-Event-ID` when it is a seq, else `after=`, else 0.
    /// A value that is not a seq (negative, not a number) counts as absent.
    public static func resumeAfter(lastEventID: String?, afterQuery: String?) -> Int {
        for text in [lastEventID, afterQuery] {
            if let text, let value = Int(text.trimmingCharacters(in: .whitespaces)), (0...WireNumbers.maxCount).contains(value) { return value }
        }
        return 0
    }

    /// Whether an `Accept` header asks for an event stream.
    public static func accepts(_ accept: String?) -> Bool {
        guard let accept else { return false }
        return accept.split(separator: ",").contains { part in
            part.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == mediaType
        }
    }
}
