import BookscanTestSupport
import Foundation
import ScanClient
import ScanProtocol
import ScanService
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The floor under the pace of a request body: a trickling upload is cut off with 408 and never held
/// the upload budget it declared; an upload at a real link's pace is not touched.
@Suite("Slow uploads")
struct SlowUploadTests {
    /// Whole-budget uploads (1 MiB each, 1 MiB of budget) and a floor of 64 KiB/s after 1 s.
    static func configuration() -> ServiceConfiguration {
        var configuration = ServiceConfiguration(maxBytes: 1 << 20, uploadMemory: 1 << 20, maxConnectionsPerClient: nil)
        configuration.bodyRateFloor = BodyRateFloor(bytesPerSecond: 64 << 10, grace: .seconds(1))
        return configuration
    }

    @Test("a PUT declaring the whole budget and trickling a byte at a time holds little of it, and is cut with 408")
    func tricklingUploadIsCut() async throws {
        try await ServiceHarness.with(Self.configuration()) { harness in
            let port = harness.service.port
            let socket = try RawSocket(port: port)
            defer { socket.close() }
            socket.send("PUT \(Routes.scan(UUID())) HTTP/1.1\r\nHost: x\r\nContent-Type: image/jpeg\r\nContent-Length: \(1 << 20)\r\n\r\n")
            socket.send([0xFF, 0xD8, 0xFF])
            // The first bytes are the route's (a later request on the service is served after it began).
            _ = try await harness.request("GET", Routes.health)
            // A real upload fits beside the trickling one: the trickler holds only what it sent.
            #expect(try await harness.put(UUID(), try SyntheticShelf.jpeg()).status == 202)
            let answer = try await onThread { Self.trickle(socket, bytes: 600, every: .milliseconds(50)) }
            #expect(statusCode(answer) == 408, "\(answer)")
            #expect(responseBody(answer).contains("too slowly"))
            #expect(answer.lowercased().contains("connection: close"))
        }
    }

    @Test("an upload sent in pieces over longer than the grace, above the floor, is accepted")
    func paceAboveFloorIsAccepted() async throws {
        var configuration = Self.configuration()
        configuration.bodyRateFloor = BodyRateFloor(bytesPerSecond: 4 << 10, grace: .milliseconds(300))
        try await ServiceHarness.with(configuration) { harness in
            let jpeg = try SyntheticShelf.jpeg()
            let port = harness.service.port
            let head = try await onThread {
                let socket = try RawSocket(port: port)
                defer { socket.close() }
                socket.send("PUT \(Routes.scan(UUID())) HTTP/1.1\r\nHost: x\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n")
                let pieces = 8
                let size = (jpeg.count + pieces - 1) / pieces
                for start in stride(from: 0, to: jpeg.count, by: size) {
                    socket.send(Array(jpeg[start..<min(jpeg.count, start + size)]))
                    usleep(150_000)
                }
                return socket.readResponseHead()?.head ?? ""
            }
            #expect(jpeg.count / 2 > 4 << 10, "the pieces outpace the floor")
            #expect(statusCode(head) == 202, "\(head)")
        }
    }

    /// Sends one byte every `every` until the server answers (or `bytes` are sent); the answer read
    /// until the server closes, or "" when it never answers.
    static func trickle(_ socket: RawSocket, bytes: Int, every: Duration) -> String {
        let wait = Int32(every.components.seconds * 1000 + every.components.attoseconds / 1_000_000_000_000_000)
        for _ in 0..<bytes {
            var ready = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
            if poll(&ready, 1, wait) > 0 { break }
            guard socket.send([0]) else { break }
        }
        return socket.readUntilClosed().text
    }
}
