import BookscanTestSupport
import Foundation
import ScanClient
import ScanProtocol
import Testing

/// A response body is read whole only up to `CurlHTTPClient.Configuration.maxResponseBytes`: a larger
/// one, with its length declared or not, ends the transfer with a typed error instead of filling memory.
@Suite("response size limit")
struct ResponseSizeLimitTests {
    /// A loopback server answering every request with `bytes` bytes of JSON-ish filler.
    static func serving(_ bytes: Int, chunked: Bool) throws -> LoopbackHTTPServer {
        let body = [UInt8](repeating: UInt8(ascii: " "), count: bytes)
        return try LoopbackHTTPServer { _ in .init(status: 200, headers: [("Content-Type", "application/json")], body: body, chunked: chunked) }
    }

    @Test("a body past the default limit (declared or chunked) is refused as response_too_large", arguments: [false, true])
    func pastTheDefault(chunked: Bool) async throws {
        let server = try Self.serving(CurlHTTPClient.Configuration.defaultMaxResponseBytes + 1, chunked: chunked)
        defer { server.stop() }
        do throws(HTTPTransportError) {
            let response = try await CurlHTTPClient().send(HTTPRequestData(method: "GET", url: "http://127.0.0.1:\(server.port)/v1/limits"))
            Issue.record("read \(response.body.count) bytes")
        } catch {
            #expect(error.kind == .responseTooLarge)
            #expect(!error.isRetryable)
            #expect(error.message.contains("4 MiB"), "\(error.message)")
        }
    }

    @Test("a body of exactly the limit is read; one byte more is not", arguments: [false, true])
    func atTheLimit(chunked: Bool) async throws {
        let client = CurlHTTPClient(configuration: .init(maxResponseBytes: 100_000))
        let exact = try Self.serving(100_000, chunked: chunked)
        defer { exact.stop() }
        let response = try await client.send(HTTPRequestData(method: "GET", url: "http://127.0.0.1:\(exact.port)/"))
        #expect(response.body.count == 100_000)
        let over = try Self.serving(100_001, chunked: chunked)
        defer { over.stop() }
        await #expect(throws: HTTPTransportError.self) {
            _ = try await client.send(HTTPRequestData(method: "GET", url: "http://127.0.0.1:\(over.port)/"))
        }
        // The client stays usable after a refused response.
        #expect(try await client.send(HTTPRequestData(method: "GET", url: "http://127.0.0.1:\(exact.port)/")).body.count == 100_000)
    }

    @Test("ScanAPI surfaces it as a transport error of that kind")
    func throughTheAPI() async throws {
        let server = try Self.serving(8 << 20, chunked: true)
        defer { server.stop() }
        let api = ScanAPI(baseURL: "http://127.0.0.1:\(server.port)", token: nil)
        do throws(ScanAPIError) {
            _ = try await api.limits()
            Issue.record("an 8 MiB answer must be refused")
        } catch {
            let message = "the server's response is larger than 4 MiB, the most bookscan reads"
            #expect(error == .transport(HTTPTransportError(kind: .responseTooLarge, message: message)))
        }
    }
}
