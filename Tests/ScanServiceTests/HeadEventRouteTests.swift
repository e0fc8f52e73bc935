import BookscanTestSupport
import Foundation
import ScanClient
import ScanProtocol
import ScanService
import Testing

/// `HEAD` on an events route answers the headers a `GET` would, and opens no stream: it takes no
/// subscriber slot of the job.
@Suite("HEAD on the events routes")
struct HeadEventRouteTests {
    @Test("more HEADs than the job has subscriber slots leave every slot free for a real event stream")
    func headsTakeNoSubscriberSlot() async throws {
        let slots = 4
        try await ServiceHarness.with(
            .init(workers: 1, maxSubscribersPerJob: slots).injecting(.init(scanStepDelay: .seconds(2)))) { harness in
            let id = UUID()
            #expect(try await harness.put(id, try SyntheticShelf.jpeg()).status == 202)
            let raw = RawExchange(port: harness.service.port)
            let events = Routes.events(id, after: 0)
            let accept = "Accept: \(EventStreamWire.mediaType)"
            for _ in 0..<(2 * slots) {
                let head = try await raw.send("HEAD", events, headers: [accept])
                #expect(head.status == 200)
                #expect(head.head.lowercased().contains("content-type: \(EventStreamWire.mediaType)"))
            }
            for _ in 0..<slots {
                #expect(try await raw.send("HEAD", Routes.multiplexedEvents([JobCursor(jobId: id, after: 0)]), headers: [accept]).status == 200)
            }
            // Every slot is still free: `slots` streams open at once, and all of them are held open together.
            let port = harness.service.port
            let streams = try await onThread {
                (0..<slots).compactMap { _ -> RawSocket? in
                    guard let socket = try? RawSocket(port: port) else { return nil }
                    socket.send("GET \(events) HTTP/1.1\r\nHost: x\r\n\(accept)\r\n\r\n")
                    return socket
                }
            }
            defer { streams.forEach { $0.close() } }
            for socket in streams {
                let head = try await onThread { socket.readResponseHead()?.head ?? "" }
                #expect(statusCode(head) == 200, "\(head)")
            }
            #expect(streams.count == slots)
            // The job still runs (a finished job's events are open to any number of readers), so the
            // slots were really free, not merely unchecked.
            #expect(try await harness.snapshot(id)?.state.isTerminal == false)
            _ = try await harness.request("DELETE", Routes.scan(id))
        }
    }
}
