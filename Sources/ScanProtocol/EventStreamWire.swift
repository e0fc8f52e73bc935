import Foundation

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
    /// The comment text of a heartbeat line (`: heartbeat <latestSeq>`).
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

    /// A heartbeat: a comment line that SSE clients ignore but that proves the stream is alive.
    public static func heartbeat(latestSeq: Int) -> String { ": \(heartbeatComment) \(latestSeq)\n\n" }

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
