import BookscanTestSupport
import Foundation
import ScanProtocol

/// A stand-in scan service on a loopback port that answers protocol v1 from a script: the limits it
/// claims, the snapshot each upload and each poll of a job returns (numbered per job from 0). It
/// refuses the events WebSocket (404), so clients follow by polling. For what no real service sends:
/// extreme numbers, a job that is lost and comes back, a job that never ends.
final class ScriptedService: Sendable {
    let server: LoopbackHTTPServer
    var url: String { "http://127.0.0.1:\(server.port)" }

    /// What a request of a job gets: a snapshot (202 for uploads, 200 for polls) or an error status.
    enum Answer: Sendable {
        case snapshot(state: JobState, stage: ScanStage, fraction: Double, seq: Int, result: ScanResult? = nil, error: ErrorBody? = nil)
        case status(Int, ErrorCode)
    }

    /// `upload(n)` answers the nth PUT of a job, `poll(n)` its nth GET.
    init(
        limits: String? = nil, upload: @escaping @Sendable (Int) -> Answer, poll: @escaping @Sendable (Int) -> Answer
    ) throws {
        let counts = CountsBox()
        server = try LoopbackHTTPServer { request in
            let path = request.target.split(separator: "?").first.map(String.init) ?? request.target
            if path == Routes.limits {
                return .json(200, limits ?? #"{"protocolVersion":1,"maxBytes":20000000,"maxPixels":50000000,"recommendedLongSide":1920,"acceptedTypes":["image/jpeg"],"heartbeatSeconds":2,"jobTTLSeconds":3600}"#)
            }
            guard path.hasPrefix(Routes.scansPrefix + "/"), !Routes.isEvents(path),
                let id = UUID(uuidString: String(path.dropFirst(Routes.scansPrefix.count + 1)))
            else {
                return .json(404, #"{"error":{"code":"not_found","message":"no such route","retryable":false}}"#)
            }
            let answer: Answer
            switch request.method {
            case "PUT": answer = upload(counts.next("PUT \(id)"))
            case "GET": answer = poll(counts.next("GET \(id)"))
            default: return .json(405, #"{"error":{"code":"bad_request","message":"method","retryable":false}}"#)
            }
            switch answer {
            case .snapshot(let state, let stage, let fraction, let seq, let result, let error):
                let now = Date()
                let snapshot = JobSnapshot(
                    jobId: id, state: state, stage: stage, fraction: fraction, seq: seq, createdAt: now, updatedAt: now, startedAt: now,
                    finishedAt: state.isTerminal ? now : nil, expiresAt: now.addingTimeInterval(3600), imageBytes: request.body.count,
                    result: result, error: error, links: JobLinks(jobId: id))
                guard let body = try? WireCoding.encode(snapshot) else {
                    return .json(500, #"{"error":{"code":"bad_request","message":"the scripted snapshot cannot be encoded","retryable":false}}"#)
                }
                return .init(status: request.method == "PUT" ? 202 : 200, headers: [("Content-Type", "application/json")], body: Array(body))
            case .status(let status, let code):
                let body = ErrorResponse(error: ErrorBody(code: code, message: "scripted \(status)", retryable: false))
                return .init(status: status, headers: [("Content-Type", "application/json")], body: (try? WireCoding.encode(body)).map { Array($0) } ?? [])
            }
        }
    }

    func stop() { server.stop() }

    /// Requests per key, numbered from 0.
    private final class CountsBox: @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [String: Int] = [:]

        func next(_ key: String) -> Int {
            lock.lock()
            defer { lock.unlock() }
            let n = counts[key, default: 0]
            counts[key] = n + 1
            return n
        }
    }
}
