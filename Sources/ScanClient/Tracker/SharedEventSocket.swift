import Foundation
import HTTPTypes
package import Logging
import NIOCore
import ScanProtocol
import WSClient

/// One events WebSocket (the multiplexed route, `/v1/events`) shared by every job a batch follows.
/// Each job's tracker still runs its own state machine: its "socket" is a subscription on this link,
/// reported exactly like a socket of its own (`opened` when the server confirms the subscription,
/// the job's events and heartbeats, `ended` with why), so each job falls back, reconnects and
/// resumes after its own seq on its own. The link opens with the first job, carries later jobs with a
/// `subscribe` message each (no new connection), and reconnects when a job needs it again after the
/// link dropped or went silent.
package actor SharedEventSocket {
    private struct Attachment {
        let connection: Int
        let after: Int
        let report: @Sendable (SocketReport) -> Void
        let done: CheckedContinuation<Void, Never>
        /// The link generation the subscription was sent on; nil while it waits for a link.
        var subscribedOn: Int?
        var acknowledged = false
    }

    private enum Link {
        case none
        case connecting(generation: Int)
        case open(generation: Int, outgoing: AsyncStream<String>.Continuation)
    }

    private let api: ScanAPI
    private let pingInterval: Duration
    private let staleAfter: Duration
    private let logger: Logger
    private var link: Link = .none
    private var linkTask: Task<Void, Never>?
    private var generation = 0
    private var lastInbound = ContinuousClock.now
    private var attachments: [UUID: Attachment] = [:]
    private var closed = false
    /// Until when a refused upgrade answers new subscriptions at once (the network refuses upgrades:
    /// a job asking again within the window learns nothing new, and each attempt costs a request).
    private var refusedUntil: ContinuousClock.Instant?
    /// Connections (upgrade attempts) this socket made, and how many of them opened.
    package private(set) var connectAttempts = 0
    package private(set) var linksOpened = 0

    /// `staleAfter`: an open link with no frame for this long is replaced when a job needs it (the
    /// server sends a heartbeat every interval, so a healthy link is never that quiet).
    package init(api: ScanAPI, staleAfter: Duration, pingInterval: Duration = .seconds(15), logger: Logger = Logger(label: "bookscan.shared-socket")) {
        self.api = api
        self.staleAfter = staleAfter
        self.pingInterval = pingInterval
        self.logger = logger
    }

    /// How long a refused upgrade is remembered for new subscriptions.
    package static let refusalMemory: Duration = .seconds(10)
    /// Most jobs one `subscribe` message carries (it stays far below the server's message limit).
    static let jobsPerSubscribe = 64

    /// Follows `jobId` on the shared link as tracker connection `connection`, from `after`, reporting
    /// like `EventSocketConnector`; returns when the subscription ended or the caller is canceled
    /// (then the job is unsubscribed).
    func follow(connection: Int, jobId: UUID, after: Int, report: @escaping @Sendable (SocketReport) -> Void) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                attach(Attachment(connection: connection, after: after, report: report, done: done), jobId: jobId)
            }
        } onCancel: {
            Task { await self.detach(jobId: jobId, connection: connection) }
        }
    }

    /// Closes the link and ends every subscription (their trackers see the socket close).
    package func close() {
        closed = true
        for (id, attachment) in attachments {
            attachment.report(.ended(connection: attachment.connection, .closed(code: nil)))
            finish(id)
        }
        dropLink()
    }

    // MARK: attachments

    private func attach(_ attachment: Attachment, jobId: UUID) {
        if Task.isCancelled || closed {
            if closed { attachment.report(.ended(connection: attachment.connection, .unreachable)) }
            attachment.done.resume()
            return
        }
        if case .none = link, let refusedUntil, ContinuousClock.now < refusedUntil {
            attachment.report(.ended(connection: attachment.connection, .refused(status: nil)))
            attachment.done.resume()
            return
        }
        if case .open(let current, _) = link, ContinuousClock.now - lastInbound > staleAfter {
            // Silent for longer than a healthy link ever is: its jobs are on a dead path.
            linkEnded(generation: current, .closed(code: nil))
        }
        if attachments[jobId] != nil { finish(jobId) }  // an older connection of the same job, already given up
        attachments[jobId] = attachment
        switch link {
        case .none:
            connect()
        case .connecting:
            break
        case .open(let current, let outgoing):
            attachments[jobId]?.subscribedOn = current
            send(.subscribe(SubscribeRequest(jobs: [JobCursor(jobId: jobId, after: attachment.after)])), on: outgoing)
        }
    }

    private func detach(jobId: UUID, connection: Int) {
        guard let attachment = attachments[jobId], attachment.connection == connection else { return }
        finish(jobId)
        if case .open(let current, let outgoing) = link, attachment.subscribedOn == current {
            send(.unsubscribe(UnsubscribeRequest(jobs: [jobId])), on: outgoing)
        }
    }

    private func finish(_ jobId: UUID) {
        attachments.removeValue(forKey: jobId)?.done.resume()
    }

    // MARK: the link

    private func connect() {
        generation += 1
        connectAttempts += 1
        link = .connecting(generation: generation)
        let generation = self.generation
        linkTask = Task { await self.runLink(generation: generation) }
    }

    private func dropLink() {
        if case .open(_, let outgoing) = link { outgoing.finish() }
        link = .none
        linkTask?.cancel()
        linkTask = nil
    }

    private nonisolated func runLink(generation: Int) async {
        var configuration = WebSocketClientConfiguration()
        configuration.autoPing = .enabled(timePeriod: pingInterval)
        configuration.maxFrameSize = 1 << 22
        if let token = api.token { configuration.additionalHeaders[.authorization] = "Bearer \(token)" }
        let (outgoing, sender) = AsyncStream<String>.makeStream()
        let opened = OpenFlag()
        let end: SocketEnd
        do {
            let closeFrame = try await WebSocketClient.connect(
                url: api.multiplexedEventsURL(), configuration: configuration,
                tlsConfiguration: EventSocketConnector.tlsConfiguration(for: api), logger: logger
            ) { inbound, outbound, _ in
                opened.set()
                await self.linkOpened(generation: generation, outgoing: sender)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for await text in outgoing { try await outbound.write(.text(text)) }
                    }
                    group.addTask {
                        for try await message in inbound.messages(maxSize: 1 << 22) {
                            guard case .text(let text) = message, let decoded = try? WireCoding.decode(ServerMessage.self, from: Data(text.utf8))
                            else { throw SharedSocketProtocolError() }
                            await self.received(decoded, generation: generation)
                        }
                    }
                    _ = try await group.next()
                    group.cancelAll()
                }
            }
            end = .closed(code: closeFrame.map { Int($0.closeCode.code) })
        } catch let error as WebSocketClientError where error == .webSocketUpgradeFailed {
            end = .refused(status: nil)
        } catch let error as WebSocketClientError where error == .serverProtocolError || error == .serverSentMessageTooLarge {
            end = .protocolError
        } catch is SharedSocketProtocolError {
            end = .protocolError
        } catch {
            end = opened.isSet ? .closed(code: nil) : .unreachable
        }
        sender.finish()
        await linkEnded(generation: generation, end)
    }

    private func linkOpened(generation: Int, outgoing: AsyncStream<String>.Continuation) {
        guard case .connecting(generation) = link else {
            outgoing.finish()
            return
        }
        link = .open(generation: generation, outgoing: outgoing)
        linksOpened += 1
        lastInbound = .now
        outgoing.yield(ClientHello.frame)
        var cursors: [JobCursor] = []
        for (id, attachment) in attachments where attachment.subscribedOn == nil {
            attachments[id]?.subscribedOn = generation
            cursors.append(JobCursor(jobId: id, after: attachment.after))
        }
        var start = 0
        while start < cursors.count {
            let end = min(cursors.count, start + Self.jobsPerSubscribe)
            send(.subscribe(SubscribeRequest(jobs: Array(cursors[start..<end]))), on: outgoing)
            start = end
        }
    }

    private func received(_ message: ServerMessage, generation: Int) {
        guard case .open(generation, _) = link else { return }
        lastInbound = .now
        switch message {
        case .subscribed(let opened):
            guard let attachment = attachments[opened.jobId], attachment.subscribedOn == generation, !attachment.acknowledged else { return }
            attachments[opened.jobId]?.acknowledged = true
            attachment.report(.opened(connection: attachment.connection))
        case .event(let event):
            guard let attachment = attachments[event.jobId], attachment.acknowledged else { return }
            attachment.report(.message(connection: attachment.connection, .event(event)))
            if event.state.isTerminal {
                // The server ends a job's subscription after its terminal event, as a one-job socket closes.
                attachment.report(.ended(connection: attachment.connection, .closed(code: 1000)))
                finish(event.jobId)
            }
        case .heartbeat(let heartbeat):
            for (id, attachment) in attachments where attachment.acknowledged {
                let latest = heartbeat.jobs?.first { $0.jobId == id }?.latestSeq ?? heartbeat.latestSeq
                attachment.report(.message(connection: attachment.connection, .heartbeat(Heartbeat(latestSeq: latest, timestamp: heartbeat.timestamp))))
            }
        case .refused(let refused):
            guard let attachment = attachments[refused.jobId], attachment.subscribedOn == generation else { return }
            attachment.report(.ended(connection: attachment.connection, .refused(status: refused.status)))
            finish(refused.jobId)
        }
    }

    /// The link of `generation` ended: every job on it (or waiting for it) sees its socket end.
    private func linkEnded(generation: Int, _ end: SocketEnd) {
        switch link {
        case .connecting(generation), .open(generation, _): dropLink()
        default: return
        }
        if case .refused = end { refusedUntil = .now + Self.refusalMemory }
        for (id, attachment) in attachments where attachment.subscribedOn == nil || attachment.subscribedOn == generation {
            let ended: SocketEnd =
                switch end {
                case .closed where !attachment.acknowledged: attachment.subscribedOn == nil ? .unreachable : .closed(code: nil)
                default: end
                }
            attachment.report(.ended(connection: attachment.connection, ended))
            finish(id)
        }
    }

    private func send(_ message: ClientMessage, on outgoing: AsyncStream<String>.Continuation) {
        guard let data = try? WireCoding.encode(message) else { return }
        outgoing.yield(String(decoding: data, as: UTF8.self))
    }
}

/// A frame on the shared link that is not a protocol message.
private struct SharedSocketProtocolError: Error {}
