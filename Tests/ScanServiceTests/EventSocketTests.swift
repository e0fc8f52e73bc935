import BookscanTestSupport
import Foundation
import NIOWebSocket
import ScanClient
import ScanProtocol
import ScanService
import Testing

@Suite("GET /v1/scans/{jobId}/events as a WebSocket")
struct EventSocketTests {
    @Test("a socket opened right after the PUT gets every event once, in order, ending with the terminal one")
    func liveStream() async throws {
        try await ServiceHarness.with(.init().injecting(.init(scanStepDelay: .milliseconds(5)))) { harness in
            let id = UUID()
            #expect(try await harness.put(id, try SyntheticShelf.jpeg()).status == 202)
            let transcript = try await harness.collectEvents(id)
            let seqs = transcript.events.map(\.seq)
            #expect(seqs == Array(1...seqs.count))
            #expect(transcript.events.last?.state == .succeeded)
            #expect(transcript.events.filter { $0.state.isTerminal }.count == 1)
            #expect(transcript.closeCode == .normalClosure)
            let fractions = transcript.events.map(\.fraction)
            #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 })
            #expect(transcript.events.last?.result != nil)
        }
    }

    @Test("replay with after=N delivers exactly the events after N: nothing lost, nothing twice, in order")
    func replayAfter() async throws {
        try await ServiceHarness.with { harness in
            let id = UUID()
            #expect(try await harness.put(id, try SyntheticShelf.jpeg()).status == 202)
            let final = try #require(try await harness.waitForTerminal(id))
            let all = try await harness.collectEvents(id, after: 0).events
            #expect(all.map(\.seq) == Array(1...final.seq))
            for after in [1, 3, final.seq - 1] where after >= 0 && after < final.seq {
                let rest = try await harness.collectEvents(id, after: after).events
                #expect(rest.map(\.seq) == Array((after + 1)...final.seq))
                #expect(rest == Array(all.dropFirst(after)))
            }
        }
    }

    @Test("a subscriber that connects after completion still gets the terminal event, then close 1000")
    func lateSubscriber() async throws {
        try await ServiceHarness.with { harness in
            let id = UUID()
            #expect(try await harness.put(id, try SyntheticShelf.jpeg()).status == 202)
            let final = try #require(try await harness.waitForTerminal(id))
            let transcript = try await harness.collectEvents(id, after: final.seq)
            #expect(transcript.events.count == 1)
            #expect(transcript.events.first?.state == .succeeded)
            #expect(transcript.events.first?.seq == final.seq)
            #expect(transcript.closeCode == .normalClosure)
        }
    }

    @Test("heartbeats arrive while the socket is open")
    func heartbeats() async throws {
        // 60 s per progress step (as its SSE twin): the job runs until the test cancels it, so the socket is
        // open while it runs however slow the machine is (1 s steps let a loaded machine finish the job
        // before two heartbeats came); heartbeats every 50 ms.
        try await ServiceHarness.with(
            .init(workers: 1, heartbeatInterval: .milliseconds(50)).injecting(.init(scanStepDelay: .seconds(60)))) { harness in
            let id = UUID()
            #expect(try await harness.put(id, try SyntheticShelf.jpeg()).status == 202)
            let live = TranscriptBox()
            let collecting = Task { try await harness.collectEvents(id, limit: .seconds(600), transcript: live) }
            // Hang guard only: heartbeats come every 50 ms.
            for _ in 0..<6_000 where live.messages.count(where: { if case .heartbeat = $0 { true } else { false } }) < 2 {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try await harness.request("DELETE", Routes.scan(id)).status == 202)
            let transcript = try await collecting.value
            #expect(transcript.heartbeats >= 2)
            // The heartbeats came while the job was still running: before its terminal event.
            let terminal = transcript.messages.firstIndex { if case .event(let e) = $0 { e.state.isTerminal } else { false } }
            let lastHeartbeat = transcript.messages.lastIndex { if case .heartbeat = $0 { true } else { false } }
            #expect(terminal != nil && lastHeartbeat != nil)
            if let terminal, let lastHeartbeat { #expect(lastHeartbeat < terminal) }
            #expect(transcript.events.last?.state == .canceled)
        }
    }

    @Test("unknown job on the events route is 404 before any upgrade")
    func unknownJob() async throws {
        try await ServiceHarness.with { harness in
            let response = try await harness.request("GET", Routes.events(UUID(), after: 0))
            #expect(response.status == 404)
            #expect(response.errorBody?.code == .notFound)
            await #expect(throws: (any Error).self) { try await harness.collectEvents(UUID()) }
        }
    }

    @Test("DELETE cancels a job: one terminal canceled event")
    func cancel() async throws {
        // 1 s per progress step: the first job runs for minutes unless canceled (the step delay ends
        // when a cancel is requested), so the DELETE always finds it running, however slow the machine.
        try await ServiceHarness.with(.init(workers: 1).injecting(.init(scanStepDelay: .seconds(1)))) { harness in
            let running = UUID(), queued = UUID()
            #expect(try await harness.put(running, try SyntheticShelf.jpeg(seed: 1)).status == 202)
            #expect(try await harness.put(queued, try SyntheticShelf.jpeg(seed: 2)).status == 202)
            var first = try await harness.snapshot(running)
            // A hang guard, not a timing assertion: a loaded machine may need many tries.
            let hangGuard1 = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < hangGuard1, first?.state != .running {
                try await Task.sleep(for: .milliseconds(50))
                first = try await harness.snapshot(running)
            }
            #expect(first?.state == .running)
            #expect(try await harness.request("DELETE", Routes.scan(queued)).status == 202)
            #expect(try await harness.request("DELETE", Routes.scan(running)).status == 202)
            for id in [running, queued] {
                let final = try #require(try await harness.waitForTerminal(id))
                #expect(final.state == .canceled)
                #expect(final.error?.code == .canceled)
                let events = try await harness.collectEvents(id).events
                #expect(events.filter { $0.state.isTerminal }.map(\.state) == [.canceled])
            }
            #expect(try await harness.health().scansStarted == 1)
        }
    }

    @Test("a finished job expires after its TTL: status and events are 404")
    func ttlExpiry() async throws {
        try await ServiceHarness.with(.init(jobTTL: .milliseconds(300))) { harness in
            let id = UUID()
            #expect(try await harness.put(id, try SyntheticShelf.jpeg()).status == 202)
            // Poll until the job is gone. Seeing its terminal state is not required: a slow poller
            // (a sanitizer build) may miss the 300 ms between the end and the expiry.
            var status = 200
            // A hang guard, not a timing assertion: a loaded machine may need many tries.
            let hangGuard2 = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < hangGuard2, status == 200 {
                try await Task.sleep(for: .milliseconds(50))
                status = try await harness.request("GET", Routes.scan(id)).status
            }
            #expect(status == 404)
            #expect(try await harness.request("GET", Routes.events(id, after: 0)).status == 404)
            // It ran once and is held no more: it expired after finishing, not before.
            let health = try await harness.health()
            #expect(health.scansStarted == 1 && health.jobsQueued == 0 && health.jobsRunning == 0 && health.jobsHeld == 0)
        }
    }

    @Test("the WebSocket accepts ?access_token= when the service has a token")
    func tokenInQuery() async throws {
        try await ServiceHarness.with(.init(token: "tok-123")) { harness in
            let id = UUID()
            #expect(try await harness.put(id, try SyntheticShelf.jpeg()).status == 202)
            var anonymous = harness
            anonymous.token = nil
            let transcript = try await anonymous.collectEvents(id, query: "&access_token=tok-123")
            #expect(transcript.events.last?.state.isTerminal == true)
            await #expect(throws: (any Error).self) { try await anonymous.collectEvents(id, query: "&access_token=nope") }
        }
    }
}
