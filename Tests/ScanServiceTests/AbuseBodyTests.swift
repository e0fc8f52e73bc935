import BookscanTestSupport
import Foundation
import ScanClient
import ScanProtocol
import ScanService
import Synchronization
import Testing

/// Bodies over the limit are cut off while they stream: the server answers 413 and closes instead
/// of reading (or draining) the rest. Sizes, not times, are asserted; the socket's hang guard only
/// turns a hang into a failure.
@Suite("Abuse: oversized and unread bodies")
struct AbuseBodyTests {
    static let gibibyte = 1 << 30
    /// Far below 1 GiB, far above what the server may still read plus the two kernels' buffers.
    static let cutOffBound = 64 << 20

    @Test("Content-Length: 1 GiB gets 413 at once and the connection closes long before 1 GiB is sent")
    func declaredOversize() async throws {
        try await ServiceHarness.with(.init(maxBytes: 1 << 20)) { harness in
            let port = harness.service.port
            let (head, sent, accepted) = try await onThread {
                let socket = try RawSocket(port: port)
                defer { socket.close() }
                socket.send("PUT \(Routes.scan(UUID())) HTTP/1.1\r\nHost: x\r\nContent-Type: image/jpeg\r\nContent-Length: \(Self.gibibyte)\r\n\r\n")
                let head = socket.readResponseHead()?.head ?? ""
                let (sent, accepted) = Self.stream(socket, upTo: Self.gibibyte) { $0 }
                return (head, sent, accepted)
            }
            #expect(statusCode(head) == 413)
            #expect(head.lowercased().contains("connection: close"))
            #expect(!accepted, "the server took the whole GiB")
            #expect(sent < Self.cutOffBound)
            #expect(try await harness.health().status == "ok")
        }
    }

    @Test("a chunked body over the limit gets 413 and is cut off mid-stream")
    func chunkedOversize() async throws {
        try await ServiceHarness.with(.init(maxBytes: 1 << 20)) { harness in
            let port = harness.service.port
            let socket = try RawSocket(port: port)
            defer { socket.close() }
            async let response = onThread { socket.readUntilClosed() }
            let (sent, accepted) = try await onThread {
                socket.send("PUT \(Routes.scan(UUID())) HTTP/1.1\r\nHost: x\r\nContent-Type: image/jpeg\r\nTransfer-Encoding: chunked\r\n\r\n")
                return Self.stream(socket, upTo: Self.gibibyte, jpegPrefix: true) { chunk in
                    Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + [13, 10]
                }
            }
            let (text, ending) = try await response
            #expect(statusCode(text) == 413)
            #expect(responseBody(text).contains(#""payload_too_large""#))
            #expect(ending == .closed)
            #expect(!accepted, "the server took the whole GiB")
            #expect(sent < Self.cutOffBound)
        }
    }

    @Test("Expect: 100-continue with a body declared over the limit gets 413 instead of 100")
    func expectContinueOversize() async throws {
        try await ServiceHarness.with(.init(maxBytes: 1 << 20)) { harness in
            let port = harness.service.port
            let (text, ending) = try await onThread {
                let socket = try RawSocket(port: port)
                defer { socket.close() }
                socket.send(
                    "PUT \(Routes.scan(UUID())) HTTP/1.1\r\nHost: x\r\nContent-Length: \(Self.gibibyte)\r\nExpect: 100-continue\r\n\r\n")
                return socket.readUntilClosed()
            }
            #expect(statusCode(text) == 413)
            #expect(!text.contains("100 Continue"))
            #expect(ending == .closed)
        }
    }

    @Test("a refused upload (401) is not drained: the connection closes after the answer")
    func unauthorizedBodyNotDrained() async throws {
        try await ServiceHarness.with(.init(token: "secret")) { harness in
            let port = harness.service.port
            let socket = try RawSocket(port: port)
            defer { socket.close() }
            async let response = onThread { socket.readUntilClosed() }
            let (sent, accepted) = try await onThread {
                socket.send("PUT \(Routes.scan(UUID())) HTTP/1.1\r\nHost: x\r\nContent-Length: \(Self.gibibyte)\r\n\r\n")
                return Self.stream(socket, upTo: Self.gibibyte) { $0 }
            }
            let (text, ending) = try await response
            #expect(statusCode(text) == 401)
            #expect(ending == .closed)
            #expect(!accepted)
            #expect(sent < Self.cutOffBound)
        }
    }

    @Test("uploads in progress share one memory budget: one that does not fit gets 503 + Retry-After, and fits again later")
    func uploadMemoryBudget() async throws {
        try await ServiceHarness.with(.init(maxBytes: 1 << 20, uploadMemory: 1 << 20)) { harness in
            let jpeg = try SyntheticShelf.jpeg()
            // A chunked upload that sends 600 KiB and stalls: it holds the whole budget.
            let stalled = try RawSocket(port: harness.service.port)
            let started = try await onThread {
                stalled.send("PUT \(Routes.scan(UUID())) HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
                return Self.stream(stalled, upTo: 600 << 10, jpegPrefix: true) { chunk in
                    Array("\(String(chunk.count, radix: 16))\r\n".utf8) + chunk + [13, 10]
                }.1
            }
            #expect(started)
            var refused: HTTPResponseData?
            // A hang guard, not a timing assertion: a loaded machine may need many tries.
            let hangGuard1 = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < hangGuard1, refused == nil {
                let response = try await harness.put(UUID(), jpeg)
                if response.status == 503 { refused = response } else { try await Task.sleep(for: .milliseconds(20)) }
            }
            let response = try #require(refused)
            #expect(response.errorBody?.code == .queueFull)
            #expect(response.header("retry-after") != nil)
            stalled.close()
            var status = 0
            // A hang guard, not a timing assertion: a loaded machine may need many tries.
            let hangGuard2 = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < hangGuard2, status != 202 {
                status = try await harness.put(UUID(), jpeg).status
                if status != 202 { try await Task.sleep(for: .milliseconds(20)) }
            }
            #expect(status == 202)
        }
    }

    @Test("a complete upload keeps the connection alive for the next request")
    func keepAliveAfterUpload() async throws {
        try await ServiceHarness.with { harness in
            let port = harness.service.port
            let jpeg = try SyntheticShelf.jpeg()
            let (first, second) = try await onThread {
                let socket = try RawSocket(port: port)
                defer { socket.close() }
                socket.send(
                    Array("PUT \(Routes.scan(UUID())) HTTP/1.1\r\nHost: x\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.count)\r\n\r\n".utf8)
                        + jpeg)
                let first = socket.readResponseHead()?.head ?? ""
                socket.send("GET \(Routes.health) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                let second = socket.readUntilClosed().text
                return (first, second)
            }
            #expect(statusCode(first) == 202)
            #expect(!first.lowercased().contains("connection: close"))
            #expect(second.contains("HTTP/1.1 200"))
        }
    }

    /// Sends up to `total` bytes in 64 KiB pieces (each framed by `frame`) until the connection
    /// refuses more; the bytes sent, and whether all of them went.
    static func stream(_ socket: RawSocket, upTo total: Int, jpegPrefix: Bool = false, frame: ([UInt8]) -> [UInt8]) -> (Int, Bool) {
        var piece = [UInt8](repeating: 0, count: 64 << 10)
        if jpegPrefix { piece.replaceSubrange(0..<3, with: [0xFF, 0xD8, 0xFF]) }
        var sent = 0
        while sent < total {
            guard socket.send(frame(piece)) else { return (sent, false) }
            sent += piece.count
            if jpegPrefix { piece.replaceSubrange(0..<3, with: [0, 0, 0]) }
        }
        return (sent, true)
    }
}
