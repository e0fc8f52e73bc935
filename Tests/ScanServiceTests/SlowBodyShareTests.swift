import BookscanTestSupport
import Foundation
import ScanClient
import ScanProtocol
import ScanService
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// An upload just over the body-rate floor holds about what it has sent, and slow bodies together
/// at most their share of the upload budget: a real upload still fits beside one.
@Suite("Slow bodies' share of the upload budget")
struct SlowBodyShareTests {
    @Test("a body over the floor but under the healthy rate does not hold its declared size: a real PUT beside it is accepted")
    func slowBodyLeavesRoom() async throws {
        // 1 MiB bodies and a budget of 1 MiB + half the real upload: one slow body holding its declared
        // size leaves too little for it. Any pace under 1 MiB/s is slow; slow bodies share 3/4 of the budget.
        let jpeg = try SyntheticShelf.jpeg()
        try #require(jpeg.count < 600 << 10, "the real upload is \(jpeg.count) bytes")
        var configuration = ServiceConfiguration(maxBytes: 1 << 20, uploadMemory: (1 << 20) + jpeg.count / 2, maxConnectionsPerClient: nil)
        configuration.bodyRateFloor = BodyRateFloor(bytesPerSecond: 1 << 10, grace: .milliseconds(300), healthyBytesPerSecond: 1 << 20, slowShare: 0.75)
        try await ServiceHarness.with(configuration) { harness in
            let port = harness.service.port
            let socket = try RawSocket(port: port)
            defer { socket.close() }
            socket.send("PUT \(Routes.scan(UUID())) HTTP/1.1\r\nHost: x\r\nContent-Type: image/jpeg\r\nContent-Length: \(1 << 20)\r\n\r\n")
            // 9 × 64 KiB at about 320 KiB/s: over half the declared size, so doubling would reserve all of it.
            let sent = try await onThread { () -> Int in
                var sent = 0
                for index in 0..<9 {
                    guard socket.send([UInt8](repeating: index == 0 ? 0xFF : 0x20, count: 64 << 10)) else { break }
                    sent += 1
                    usleep(200_000)
                }
                return sent
            }
            #expect(sent == 9)
            // The slow body's bytes have reached the route once a later request on the service is served.
            _ = try await harness.request("GET", Routes.health)
            #expect(try await harness.put(UUID(), jpeg).status == 202)
        }
    }

    @Test("a slow body that outgrows the slow bodies' share is refused with 503 + Retry-After; a healthy one of the same size is not")
    func slowBodyOverShareRefused() async throws {
        // 2 MiB of budget, slow bodies (under 1 MiB/s) may hold a quarter of it: 512 KiB.
        var configuration = ServiceConfiguration(maxBytes: 1 << 20, uploadMemory: 2 << 20, maxConnectionsPerClient: nil)
        configuration.bodyRateFloor = BodyRateFloor(bytesPerSecond: 1 << 10, grace: .milliseconds(300), healthyBytesPerSecond: 1 << 20, slowShare: 0.25)
        try await ServiceHarness.with(configuration) { harness in
            let port = harness.service.port
            let head = try await onThread { () -> String in
                let socket = try RawSocket(port: port)
                defer { socket.close() }
                socket.send("PUT \(Routes.scan(UUID())) HTTP/1.1\r\nHost: x\r\nContent-Type: image/jpeg\r\nContent-Length: \(1 << 20)\r\n\r\n")
                for index in 0..<16 {
                    guard socket.send([UInt8](repeating: index == 0 ? 0xFF : 0x20, count: 64 << 10)) else { break }
                    usleep(200_000)
                }
                return socket.readResponseHead()?.head ?? ""
            }
            #expect(statusCode(head) == 503, "\(head)")
            #expect(head.lowercased().contains("retry-after"))
            // The same size sent at once is healthy: the share does not limit it.
            let jpeg = try SyntheticShelf.jpeg()
            #expect(try await harness.put(UUID(), jpeg + [UInt8](repeating: 0, count: (1 << 20) - jpeg.count)).status == 202)
        }
    }
}
