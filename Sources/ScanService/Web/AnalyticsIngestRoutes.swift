import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import RunModel
import ScanAnalytics
import ScanProtocol

/// `POST /v1/analytics`: the web client reports how each of its runs went, so `bookscan stats`
/// counts browser runs beside the CLI's. The body is one `AnalyticsRecord` (the type the CLI writes,
/// decoded with the protocol's coding) marked `"client": "web"`; it is checked and appended to the
/// service's analytics log (`serve --analytics-log`) under the log's lock. Behind the bearer token
/// when the service has one; the body is bounded; without a log the route answers 404.
struct AnalyticsIngestRoutes: Sendable {
    /// The largest body accepted: a record is well under 2 KiB.
    static let maxBodyBytes = 16 * 1024
    /// The commands the page runs (one photo, several at once).
    static let webCommands: Set<String> = ["scan", "batch"]

    /// Where records go; nil when the service keeps no analytics log.
    let log: AnalyticsLog?

    func register(on routes: AccessGroups) {
        routes.on(.analytics, .post) { request, context in try await self.ingest(request, context: context) }
    }

    /// Checks and appends one record; `204 No Content` once it is in the log. Asks for the
    /// `100 Continue` (`Expect: 100-continue`) once the type and declared length pass.
    func ingest(_ request: Request, context: ScanRequestContext) async throws -> Response {
        guard let log else { throw ServiceError(.notFound, .notFound, "this service keeps no analytics log (serve --analytics-log PATH)") }
        guard let type = request.headers[.contentType], type.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() == "application/json"
        else { throw ServiceError(.unsupportedMediaType, .unsupportedMediaType, "an analytics record is application/json") }
        if let declared = request.headers[.contentLength].flatMap({ Int($0) }), declared > Self.maxBodyBytes { throw Self.tooLarge }
        context.continueBody()
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: Self.maxBodyBytes)
        } catch is NIOTooManyBytesError {
            throw Self.tooLarge
        }
        let record = try Self.record(from: Data(body.readableBytesView))
        try await NIOThreadPool.singleton.runIfActive { try log.append(record) }
        return Response(status: .noContent)
    }

    static let tooLarge = ServiceError(.contentTooLarge, .payloadTooLarge, "an analytics record is at most \(maxBodyBytes) bytes")

    /// An HTTP status a fallback may name.
    static let statusRange = 100...599
    /// The longest name of a path in `eventsByPath` (`websocket_reconnected` and the like).
    static let maxPathNameBytes = 32
    /// How far a record's timestamp may be from the service's clock.
    static let clockSkew: TimeInterval = 24 * 60 * 60

    /// The record in `data`, or a 400 `bad_request` naming what is wrong with it: every count within
    /// 0…`WireNumbers.maxCount`, seconds finite and not negative, `fallbackStatus` an HTTP status,
    /// strings and path names bounded, the timestamp within `clockSkew` of `now`.
    static func record(from data: Data, now: Date = Date()) throws -> AnalyticsRecord {
        let record: AnalyticsRecord
        do {
            record = try WireCoding.decode(AnalyticsRecord.self, from: data)
        } catch let error as DecodingError {
            throw ServiceError(.badRequest, .badRequest, "not an analytics record: \(describe(error))")
        }
        guard record.client == .web else { throw invalid("client must be \"\(AnalyticsClient.web.rawValue)\"") }
        guard record.schemaVersion == AnalyticsRecord.currentSchemaVersion else {
            throw invalid("schemaVersion must be \(AnalyticsRecord.currentSchemaVersion)")
        }
        guard webCommands.contains(record.command) else { throw invalid("command must be scan or batch") }
        let seconds = [record.totalSeconds, record.uploadSeconds, record.firstEventSeconds].compactMap { $0 }
        guard seconds.allSatisfy({ $0.isFinite && $0 >= 0 }) else { throw invalid("seconds must be finite and not negative") }
        let counts = [
            record.reconnects, record.socketFailures, record.polls, record.streamFailures, record.bytesUp, record.spinesFound,
            record.uploadAttempts, record.resubmissions,
        ].compactMap { $0 }
        guard counts.allSatisfy({ (0...WireNumbers.maxCount).contains($0) }), record.eventsByPath.values.allSatisfy({ (0...WireNumbers.maxCount).contains($0) })
        else { throw invalid("counts must be between 0 and \(WireNumbers.maxCount)") }
        guard record.fallbackStatus.map({ statusRange.contains($0) }) ?? true else {
            throw invalid("fallbackStatus must be an HTTP status (\(statusRange.lowerBound)-\(statusRange.upperBound))")
        }
        guard record.eventsByPath.count <= 8, record.eventsByPath.keys.allSatisfy({ $0.utf8.count <= maxPathNameBytes }),
            record.network.utf8.count <= 128, record.server.utf8.count <= 128, record.bookscanVersion.utf8.count <= 64,
            (record.jobId ?? "").utf8.count <= 64
        else { throw invalid("a field is longer than a record's") }
        guard abs(record.timestamp.timeIntervalSince(now)) <= clockSkew else {
            throw invalid("timestamp must be within a day of the service's clock")
        }
        return record
    }

    private static func invalid(_ what: String) -> ServiceError { ServiceError(.badRequest, .badRequest, "not an analytics record: \(what)") }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "\(key.stringValue) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            context.codingPath.isEmpty ? "the body is not a JSON object" : "\(context.codingPath.map(\.stringValue).joined(separator: ".")) is not valid"
        @unknown default: "the body is not a record"
        }
    }
}
