import BookscanTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import ScanProtocol
import ScanService

/// A service's routes driven in process (`ScanServer.inProcess` through HummingbirdTesting: no socket, no
/// workers, no title reading) and the few calls the route-rule suites make of it.
struct InProcessService {
    let configuration: ServiceConfiguration

    init(_ configuration: ServiceConfiguration = ServiceConfiguration()) { self.configuration = configuration }

    /// Runs `body` with a client of a fresh in-process service for this configuration.
    func test(_ body: @escaping @Sendable (InProcessClient) async throws -> Void) async throws {
        let application = ScanServer.inProcess(configuration: configuration, logger: .quiet("bookscan.in-process"))
        let token = configuration.token
        try await application.test(.router) { (client) async throws in
            try await body(InProcessClient(client: client, token: token))
        }
    }
}

/// A HummingbirdTesting client that sends the service's token unless told otherwise.
struct InProcessClient: Sendable {
    let client: any TestClientProtocol
    let token: String?

    /// Sends `method` on `uri` with `headers`, `body` and `token` (the service's own when nil; `""` sends none).
    func send(
        _ method: HTTPRequest.Method, _ uri: String, body: [UInt8]? = nil, token: String? = nil, headers: HTTPFields = [:]
    ) async throws -> TestResponse {
        var fields = headers
        let credential = token ?? self.token ?? ""
        if !credential.isEmpty { fields[.authorization] = "Bearer \(credential)" }
        if body != nil, fields[.contentType] == nil { fields[.contentType] = ProtocolNames.jpegMediaType }
        return try await client.executeRequest(uri: uri, method: method, headers: fields, body: body.map { ByteBuffer(bytes: $0) })
    }

    /// Uploads `jpeg` as job `id`.
    func put(_ id: UUID, _ jpeg: [UInt8], token: String? = nil) async throws -> TestResponse {
        try await send(.put, Routes.scan(id), body: jpeg, token: token)
    }

    /// The job's snapshot, or nil when the service has no such job.
    func snapshot(_ id: UUID) async throws -> JobSnapshot? {
        let response = try await send(.get, Routes.scan(id))
        guard response.status == .ok else { return nil }
        return try WireCoding.decode(JobSnapshot.self, from: response.bytes)
    }
}

extension TestResponse {
    /// The body's bytes.
    var bytes: Data { Data(body.readableBytesView) }

    /// The body as text.
    var text: String { String(decoding: body.readableBytesView, as: UTF8.self) }

    /// The JSON error the body carries, if it is one.
    var errorBody: ErrorBody? { try? WireCoding.decode(ErrorResponse.self, from: bytes).error }
}
