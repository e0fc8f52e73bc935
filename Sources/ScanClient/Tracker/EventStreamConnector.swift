import Foundation
import ScanProtocol

/// What one event stream (SSE) reports to the tracker driver.
enum StreamReport: Sendable {
    /// The server answered 200 with an event stream.
    case opened(connection: Int)
    /// Bytes arrived: the job events they completed, in order, the heartbeats among them (none of
    /// either for the stream's opening), the highest latest seq and the latest server time those heartbeats named.
    case received(connection: Int, [JobEvent], heartbeats: Int, heartbeatLatestSeq: Int?, heartbeatTime: Date?)
    case ended(connection: Int, SocketEnd)
}

/// Follows a job's events over Server-Sent Events with libcurl (the same proxies, TLS settings and
/// token as uploads and polls): `GET …/events?after=N` with `Accept: text/event-stream`, parsed by
/// `EventStreamParser`, each message's JSON decoded as the WebSocket frame's. Reports everything that
/// happens, including why the stream ended.
struct EventStreamConnector: Sendable {
    let api: ScanAPI

    /// Runs one stream until it ends or the task is canceled (then returns at once); never throws.
    func run(connection: Int, jobId: UUID, after: Int, report: @escaping @Sendable (StreamReport) -> Void) async {
        await runAbandoningOnCancel { await follow(connection: connection, jobId: jobId, after: after, report: report) }
    }

    /// What the transfer thread hands over, in order.
    private enum Arrival: Sendable {
        case head(status: Int, contentType: String?)
        case bytes([UInt8])
        case end(Result<Int, HTTPTransportError>)
    }

    private func follow(connection: Int, jobId: UUID, after: Int, report: @escaping @Sendable (StreamReport) -> Void) async {
        let (arrivals, feed) = AsyncStream<Arrival>.makeStream()
        let request = api.eventStreamRequest(jobId: jobId, after: after)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                let sink = HTTPStreamSink(
                    head: { feed.yield(.head(status: $0, contentType: $1["content-type"])) }, body: { feed.yield(.bytes($0)) })
                do throws(HTTPTransportError) {
                    feed.yield(.end(.success(try await api.http.stream(request, into: sink))))
                } catch {
                    feed.yield(.end(.failure(error)))
                }
                feed.finish()
            }
            await consume(arrivals, connection: connection, report: report)
            group.cancelAll()
        }
    }

    private func consume(_ arrivals: AsyncStream<Arrival>, connection: Int, report: @escaping @Sendable (StreamReport) -> Void) async {
        var parser = EventStreamParser()
        var isStream = false
        for await arrival in arrivals {
            switch arrival {
            case .head(let status, let contentType):
                isStream = status == 200 && EventStreamWire.accepts(contentType)
                if isStream { report(.opened(connection: connection)) }
            case .bytes(let chunk):
                guard isStream else { continue }  // an error body: the status says it all
                var events: [JobEvent] = []
                var heartbeats = 0
                var heartbeatLatestSeq: Int?
                var heartbeatTime: Date?
                for item in parser.consume(chunk) {
                    if case .overflow = item {
                        // A line or message past the cap is no event of this protocol: the stream is given up.
                        report(.ended(connection: connection, .protocolError))
                        return
                    }
                    guard case .message(let message) = item else {
                        if case .comment(let text) = item, let heartbeat = EventStreamWire.heartbeatFields(text) {
                            heartbeats += 1
                            if let seq = heartbeat.latestSeq { heartbeatLatestSeq = max(heartbeatLatestSeq ?? seq, seq) }
                            if let time = heartbeat.timestamp { heartbeatTime = max(heartbeatTime ?? time, time) }
                        }
                        continue
                    }
                    // A type this client does not know is skipped (a newer server may add some).
                    guard message.event == nil || message.event == EventStreamWire.eventType else { continue }
                    guard case .event(let event)? = try? WireCoding.decode(ServerMessage.self, from: Data(message.data.utf8)) else {
                        report(.ended(connection: connection, .protocolError))
                        return
                    }
                    events.append(event)
                }
                report(
                    .received(
                        connection: connection, events, heartbeats: heartbeats, heartbeatLatestSeq: heartbeatLatestSeq, heartbeatTime: heartbeatTime))
            case .end(.success(let status)):
                if Task.isCancelled { return }
                // A stream that ends is closed by the server (after the terminal event) or by a proxy.
                report(.ended(connection: connection, isStream ? .closed(code: nil) : .refused(status: status)))
                return
            case .end(.failure(let error)):
                if Task.isCancelled || error.kind == .canceled { return }
                report(.ended(connection: connection, isStream ? .closed(code: nil) : .unreachable))
                return
            }
        }
    }
}
