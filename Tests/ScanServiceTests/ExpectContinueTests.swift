import BookscanTestSupport
import Foundation
import ScanProtocol
import ScanService
import Testing

@Suite("Expect: 100-continue")
struct ExpectContinueTests {
    /// Sends the request head alone and reads what comes back before any body byte is sent.
    @Test("the service answers 100 Continue before the body, then 202 after it")
    func interimResponse() async throws {
        try await ServiceHarness.with { harness in
            let jpeg = try SyntheticShelf.jpeg()
            // Blocking socket calls on a thread of their own: on the cooperative pool they would starve the service.
            let port = harness.service.port
            let (interim, final) = try await onThread { try Self.exchange(port: port, path: Routes.scan(UUID()), body: jpeg) }
            #expect(interim.hasPrefix("HTTP/1.1 100"))
            #expect(final.hasPrefix("HTTP/1.1 202"))
        }
    }

    static func exchange(port: Int, path: String, body: [UInt8]) throws -> (String, String) {
        let socket = try RawSocket(port: port)
        defer { socket.close() }
        socket.send("PUT \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: image/jpeg\r\nContent-Length: \(body.count)\r\nExpect: 100-continue\r\n\r\n")
        let interim = socket.receive(max: 4096).bytes.map { String(decoding: $0, as: UTF8.self) } ?? ""
        socket.send(body)
        let final = socket.receive(max: 4096).bytes.map { String(decoding: $0, as: UTF8.self) } ?? ""
        return (interim, final)
    }
}
