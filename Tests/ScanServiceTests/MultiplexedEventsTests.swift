import BookscanTestSupport
import Foundation
import HTTPTypes
import NIOWebSocket
import Logging
import NIOConcurrencyHelpers
import ScanClient
import ScanProtocol
import ScanService
import Testing
import WSClient

/// `GET /v1/events`: one WebSocket (or event stream) for many jobs, each with its own seq and
/// cursor, jobs added and removed on the open socket. Real service, real sockets.
@Suite("GET /v1/events: one subscription, many jobs")
struct MultiplexedEventsTests {
    static func fast(_ seams: FaultSeams = .init(scanStepDelay: .milliseconds(10))) -> ServiceConfiguration {
        var configuration = ServiceConfiguration(heartbeatInterval: .milliseconds(100))
        configuration.faults = seams
        return configuration
    }

    /// Connects to `path`, says hello, and hands every decoded message to `script` (which may write
    /// to the socket and returns false to close it). Fails instead of hanging after `limit`.
    static func converse(
        _ harness: ServiceHarness, path: String, limit: Duration = .seconds(90),
        script: @escaping @Sendable (ServerMessage, WebSocketOutboundWriter) async throws -> Bool
    ) async throws -> [ServerMessage] {
        let transcript = TranscriptBox()
        let finished = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                _ = try await WebSocketClient.connect(
                    url: harness.webSocketBase + path,
                    configuration: .init(additionalHeaders: harness.token.map { [.authorization: "Bearer \($0)"] } ?? [:]),
                    logger: Logger(label: "test.ws")
                ) { inbound, outbound, _ in
                    try await outbound.write(.text(ClientHello.frame))
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message else { continue }
                        let decoded = try WireCoding.decode(ServerMessage.self, from: Data(text.utf8))
                        transcript.append(decoded)
                        if try await !script(decoded, outbound) {
                            try await outbound.close(.normalClosure, reason: nil)
                            return
                        }
                    }
                }
                return true
            }
            group.addTask {
                try await Task.sleep(for: limit)
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        guard finished else { throw SocketStillOpen(messages: transcript.messages) }
        return transcript.messages
    }

    static func text(_ message: ClientMessage) throws -> String { String(decoding: try WireCoding.encode(message), as: UTF8.self) }

    @Test("jobs from the query and added later: subscribed first, each job's events after its own cursor, unknown ones refused 404, unsubscribe stops a job, heartbeats list every job")
    func subscribeAddRefuseUnsubscribe() async throws {
        // Steps slow enough that B and D outlast several heartbeats, also on a loaded machine (at 40 ms
        // a full parallel run once saw B end before any heartbeat listed it).
        try await ServiceHarness.with(Self.fast(.init(scanStepDelay: .milliseconds(100)))) { harness in
            let a = UUID(), b = UUID(), d = UUID(), unknown = UUID()
            #expect(try await harness.put(a, try SyntheticShelf.jpeg(seed: 1)).status == 202)
            let finalA = try #require(try await harness.waitForTerminal(a))
            #expect(try await harness.put(b, try SyntheticShelf.jpeg(seed: 2)).status == 202)
            #expect(try await harness.put(d, try SyntheticShelf.jpeg(seed: 3)).status == 202)

            let progress = NIOLockedValueBox((added: false, unsubscribed: false, bDone: false))
            let messages = try await Self.converse(harness, path: Routes.multiplexedEvents([JobCursor(jobId: a, after: 2)])) { message, outbound in
                switch message {
                case .event(let event) where event.jobId == a && event.state.isTerminal:
                    progress.withLockedValue { $0.added = true }
                    try await outbound.write(.text(try Self.text(.subscribe(SubscribeRequest(jobs: [.init(jobId: b), .init(jobId: unknown), .init(jobId: d)])))))
                case .event(let event) where event.jobId == d:
                    if progress.withLockedValue({ state in defer { state.unsubscribed = true }; return !state.unsubscribed }) {
                        try await outbound.write(.text(try Self.text(.unsubscribe(UnsubscribeRequest(jobs: [d])))))
                    }
                case .event(let event) where event.jobId == b && event.state.isTerminal:
                    progress.withLockedValue { $0.bDone = true }
                case .heartbeat(let heartbeat):
                    let state = progress.withLockedValue { $0 }
                    // Done once B ended and a heartbeat shows D is no longer followed.
                    if state.bDone, state.unsubscribed, heartbeat.jobs?.contains(where: { $0.jobId == d }) == false { return false }
                default: break
                }
                return true
            }

            #expect(messages.first == .subscribed(SubscriptionOpened(jobId: a, after: 2, latestSeq: finalA.seq)))
            let events = messages.compactMap { if case .event(let e) = $0 { e } else { nil } }
            #expect(events.filter { $0.jobId == a }.map(\.seq) == Array(3...finalA.seq), "A replayed after its cursor, once")
            let bSeqs = events.filter { $0.jobId == b }.map(\.seq)
            #expect(bSeqs == Array(1...max(1, bSeqs.count)), "B whole, in order: \(bSeqs)")
            #expect(events.filter { $0.jobId == b && $0.state.isTerminal }.count == 1)
            #expect(messages.contains { $0.subscribed?.jobId == b && $0.subscribed?.after == 0 })
            let refusal = messages.compactMap { if case .refused(let r) = $0 { r } else { nil } }
            #expect(refusal.map(\.jobId) == [unknown] && refusal.first?.status == 404 && refusal.first?.error.code == .notFound)
            // Subscriptions are confirmed before their job's first event.
            for job in [a, b, d] {
                let subscribed = messages.firstIndex { if case .subscribed(let s) = $0 { s.jobId == job } else { false } }
                let firstEvent = messages.firstIndex { if case .event(let e) = $0 { e.jobId == job } else { false } }
                #expect(subscribed != nil && (firstEvent == nil || subscribed! < firstEvent!))
            }
            // After a heartbeat that no longer lists D, no D event comes.
            let firstD = try #require(messages.firstIndex { if case .event(let e) = $0 { e.jobId == d } else { false } })
            let dropped = try #require(messages[firstD...].firstIndex { if case .heartbeat(let h) = $0 { h.jobs?.contains { $0.jobId == d } == false } else { false } })
            #expect(!messages[dropped...].contains { if case .event(let e) = $0 { e.jobId == d } else { false } })
            let dEvents = events.filter { $0.jobId == d }
            #expect(dEvents.last?.state.isTerminal != true, "D was unsubscribed before its end")
            // Heartbeats carry each followed job's latest seq.
            let listed = messages.compactMap { if case .heartbeat(let h) = $0 { h.jobs } else { nil } }
            #expect(listed.contains { jobs in jobs.contains { $0.jobId == b && $0.latestSeq >= 1 } })
        }
    }

    @Test("the same route as an event stream: subscribed / refused / events with id JOB:seq / heartbeat messages; the response ends when every job has")
    func eventStream() async throws {
        try await ServiceHarness.with(Self.fast()) { harness in
            let a = UUID(), b = UUID(), unknown = UUID()
            #expect(try await harness.put(a, try SyntheticShelf.jpeg(seed: 4)).status == 202)
            #expect(try await harness.put(b, try SyntheticShelf.jpeg(seed: 5)).status == 202)
            let path = Routes.multiplexedEvents([JobCursor(jobId: a, after: 1), JobCursor(jobId: b), JobCursor(jobId: unknown)])
            let capture = try await ServerSentEventsTests.stream(harness, a, path: path)
            #expect(capture.status == 200 && capture.headers["content-type"] == EventStreamWire.mediaType)
            let blocks = capture.blocks.compactMap { lines -> (id: String?, type: String?, message: ServerMessage)? in
                guard let data = lines.first(where: { $0.hasPrefix("data: ") }),
                    let message = try? WireCoding.decode(ServerMessage.self, from: Data(data.dropFirst(6).utf8))
                else { return nil }
                return (lines.first { $0.hasPrefix("id: ") }.map { String($0.dropFirst(4)) }, lines.first { $0.hasPrefix("event: ") }.map { String($0.dropFirst(7)) }, message)
            }
            for job in [a, b] {
                let events = blocks.compactMap { block -> (String?, JobEvent)? in
                    if case .event(let e) = block.message, e.jobId == job { (block.id, e) } else { nil }
                }
                let first = job == a ? 2 : 1
                #expect(events.map(\.1.seq) == Array(first...max(first, events.last?.1.seq ?? first)))
                #expect(events.allSatisfy { $0.0 == "\(job.uuidString.lowercased()):\($0.1.seq)" })
                #expect(events.last?.1.state.isTerminal == true)
            }
            #expect(blocks.contains { $0.type == EventStreamWire.subscribedType && $0.message.subscribed?.jobId == a && $0.message.subscribed?.after == 1 })
            #expect(blocks.contains { if case .refused(let r) = $0.message { r.jobId == unknown && r.status == 404 && $0.type == EventStreamWire.refusedType } else { false } })
            #expect(blocks.allSatisfy { block in if case .heartbeat = block.message { block.type == EventStreamWire.heartbeatType } else { true } })
        }
    }

    @Test("limits and refusals: too many jobs (429 too_many_jobs, on the socket and for a stream), a malformed jobs= (400), no upgrade and no Accept (426), the token")
    func limitsAndRefusals() async throws {
        // Jobs that run for the whole test: a job that ends leaves the subscription and frees its room,
        // so finished jobs would make the refusal depend on how fast the first ones replay.
        var configuration = Self.fast(.init(scanStepDelay: .seconds(2)))
        configuration.maxJobsPerEventSocket = 2
        configuration.token = "s3cret"
        try await ServiceHarness.with(configuration) { harness in
            let jobs = [UUID(), UUID(), UUID()]
            for (i, job) in jobs.enumerated() { #expect(try await harness.put(job, try SyntheticShelf.jpeg(seed: 10 + i)).status == 202) }

            let limits = try WireCoding.decode(ServiceLimits.self, from: Data(try await harness.request("GET", Routes.limits).body))
            #expect(limits.maxJobsPerEventSocket == 2)
            let seen = NIOLockedValueBox(0)
            let messages = try await Self.converse(harness, path: Routes.multiplexedEvents(jobs.map { JobCursor(jobId: $0) })) { message, _ in
                // Done once the two subscriptions and the refusal have come.
                if case .refused = message { seen.withLockedValue { $0 += 1 } }
                if case .subscribed = message { seen.withLockedValue { $0 += 1 } }
                return seen.withLockedValue { $0 } < 3
            }
            #expect(messages.compactMap(\.subscribed).map(\.jobId) == Array(jobs.prefix(2)))
            let refused = messages.compactMap { if case .refused(let r) = $0 { r } else { nil } }
            #expect(refused.map(\.jobId) == [jobs[2]] && refused.first?.status == 429 && refused.first?.error.code == .tooManyJobs)

            let tooMany = try await harness.request(
                "GET", Routes.multiplexedEvents(jobs.map { JobCursor(jobId: $0) }), headers: [("Accept", EventStreamWire.mediaType)])
            #expect(tooMany.status == 429 && tooMany.errorBody?.code == .tooManyJobs)
            let malformed = try await harness.request("GET", "\(Routes.multiplexedEvents)?\(ProtocolNames.jobsQuery)=not-a-uuid:x")
            #expect(malformed.status == 400 && malformed.errorBody?.code == .badRequest)
            let plain = try await harness.request("GET", Routes.multiplexedEvents([JobCursor(jobId: jobs[0])]))
            #expect(plain.status == 426)
            let anonymous = try await harness.request("GET", Routes.multiplexedEvents, token: "wrong")
            #expect(anonymous.status == 401)
        }
    }
}

extension ServerMessage {
    /// The body of a `subscribed` message.
    var subscribed: SubscriptionOpened? { if case .subscribed(let s) = self { s } else { nil } }
}
