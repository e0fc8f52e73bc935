import BookscanTestSupport
import Foundation
import HTTPTypes
import ImageKit
import Logging
import NIOConcurrencyHelpers
import NIOWebSocket
import ScanClient
import ScanProtocol
import ScanService
import WSClient

/// A running embedded service plus the clients tests use to talk to it over real sockets.
struct ServiceHarness {
    let service: EmbeddedScanService
    let http = CurlHTTPClient(configuration: .init(connectTimeout: .seconds(5), totalTimeout: .seconds(30)))
    var token: String?

    static func start(_ configuration: ServiceConfiguration = .init(), readsTitles: Bool = false) async throws -> ServiceHarness {
        let service = try await EmbeddedScanService.startQuietly(configuration, level: .warning, readsTitles: readsTitles)
        return ServiceHarness(service: service, token: configuration.token)
    }

    /// Starts a harness, runs `body` with it, and awaits `stop()` whether `body` returns or throws.
    @discardableResult
    static func with<T>(
        _ configuration: ServiceConfiguration = .init(), readsTitles: Bool = false, isolation: isolated (any Actor)? = #isolation,
        _ body: (ServiceHarness) async throws -> T
    ) async throws -> T {
        try await stopping(try await start(configuration, readsTitles: readsTitles), stop: { await $0.stop() }, body)
    }

    func stop() async { await service.stop() }

    var baseURL: String { service.baseURL }
    var webSocketBase: String { "ws://127.0.0.1:\(service.port)" }

    func request(_ method: String, _ path: String, body: [UInt8]? = nil, token: String? = nil, headers: [(String, String)] = [])
        async throws -> HTTPResponseData
    {
        var all = headers
        if let token = token ?? self.token { all.append(("Authorization", "Bearer \(token)")) }
        if body != nil { all.append(("Content-Type", ProtocolNames.jpegMediaType)) }
        return try await http.send(HTTPRequestData(method: method, url: baseURL + path, headers: all, body: body))
    }

    func put(_ jobId: UUID, _ jpeg: [UInt8], token: String? = nil) async throws -> HTTPResponseData {
        try await request("PUT", Routes.scan(jobId), body: jpeg, token: token)
    }

    func snapshot(_ jobId: UUID) async throws -> JobSnapshot? {
        let response = try await request("GET", Routes.scan(jobId))
        guard response.status == 200 else { return nil }
        return try WireCoding.decode(JobSnapshot.self, from: Data(response.body))
    }

    func health() async throws -> HealthStatus { try await service.health() }

    /// Polls the snapshot until the job is terminal; `limit` is a hang guard (no timing assertion).
    func waitForTerminal(_ jobId: UUID, limit: Duration = .seconds(300)) async throws -> JobSnapshot? {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let snapshot = try await snapshot(jobId), snapshot.state.isTerminal { return snapshot }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    /// Opens the events socket and collects every message until the server closes it; fails
    /// (instead of hanging) when the socket is still open after `limit`.
    /// `transcript` receives each message as it arrives (to see that the socket is live).
    func collectEvents(
        _ jobId: UUID, after: Int = 0, query: String = "", limit: Duration = .seconds(60), transcript: TranscriptBox = TranscriptBox()
    ) async throws -> SocketTranscript {
        return try await withThrowingTaskGroup(of: SocketTranscript?.self) { group in
            group.addTask { try await collect(jobId, after: after, query: query, into: transcript) }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            guard let first else { throw SocketStillOpen(messages: transcript.messages) }
            return first
        }
    }

    private func collect(_ jobId: UUID, after: Int, query: String, into transcript: TranscriptBox) async throws -> SocketTranscript {
        let closeFrame = try await WebSocketClient.connect(
            url: webSocketBase + Routes.events(jobId, after: after) + query,
            configuration: .init(additionalHeaders: token.map { [.authorization: "Bearer \($0)"] } ?? [:]),
            logger: Logger(label: "test.ws")
        ) { inbound, outbound, _ in
            try await outbound.write(.text(ClientHello.frame))
            for try await message in inbound.messages(maxSize: 1 << 20) {
                guard case .text(let text) = message else { continue }
                transcript.append(try WireCoding.decode(ServerMessage.self, from: Data(text.utf8)))
            }
        }
        return SocketTranscript(messages: transcript.messages, closeCode: closeFrame?.closeCode)
    }
}

/// The events socket did not close in time; carries what it received.
struct SocketStillOpen: Error, CustomStringConvertible {
    var messages: [ServerMessage]
    var description: String { "socket still open after \(messages.count) messages: \(messages)" }
}

/// What one events socket received.
struct SocketTranscript: Sendable {
    var messages: [ServerMessage]
    var closeCode: WebSocketErrorCode?

    var events: [JobEvent] {
        messages.compactMap { if case .event(let event) = $0 { event } else { nil } }
    }
    var heartbeats: Int {
        messages.count { if case .heartbeat = $0 { true } else { false } }
    }
}

final class TranscriptBox: Sendable {
    private let storage = NIOLockedValueBox<[ServerMessage]>([])
    func append(_ message: ServerMessage) { storage.withLockedValue { $0.append(message) } }
    var messages: [ServerMessage] { storage.withLockedValue { $0 } }
}

extension HTTPResponseData {
    /// The protocol error body, when the response carries one.
    var errorBody: ErrorBody? { try? WireCoding.decode(ErrorResponse.self, from: Data(body)).error }
}
