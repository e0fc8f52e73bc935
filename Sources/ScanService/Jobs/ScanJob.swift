import BookscanBase
import Foundation
import NIOConcurrencyHelpers
import ScanProtocol

/// One scan job of the in-memory store: its image until a worker takes it, its ordered event log,
/// and its live subscribers.
/// All state sits behind one mutex, so appending an event and handing it to subscribers is a
/// single step: a subscriber registered with `after = N` sees every event > N exactly once, in order.
final class ScanJob: RunningJob {
    let id: UUID
    let digest: [UInt8]
    let imageBytes: Int
    let createdAt: Date
    /// Events are numbered from `seqBase + 1` (a resubmitted job continues its client's stream).
    let seqBase: Int
    private let state: NIOLockedValueBox<State>

    private struct State {
        var image: [UInt8]?
        var jobState: JobState = .queued
        var stage: ScanStage = .queued
        var fraction: Double = 0
        var updatedAt: Date
        var startedAt: Date?
        var finishedAt: Date?
        var result: ScanResult?
        var error: ErrorBody?
        var events: [(event: JobEvent, frame: String)] = []
        /// Live subscribers, each with the seq it resumed after (a live event at or below it is not sent,
        /// unless it is the terminal one).
        var subscribers: [Int: (continuation: AsyncStream<OutgoingFrame>.Continuation, after: Int)] = [:]
        var nextSubscriber = 0
        var cancelRequested = false
    }

    init(id: UUID, image: [UInt8], digest: [UInt8], seqBase: Int = 0, now: Date) {
        self.id = id
        self.seqBase = seqBase
        self.digest = digest
        self.imageBytes = image.count
        self.createdAt = now
        self.state = NIOLockedValueBox(State(image: image, updatedAt: now))
        publish(state: .queued, stage: .queued, fraction: 0, now: now)
    }

    var jobState: JobState { state.withLockedValue { $0.jobState } }
    var stop: JobStop? { state.withLockedValue { $0.cancelRequested ? .canceled : nil } }
    var subscriberCount: Int { state.withLockedValue { $0.subscribers.count } }
    var latestSeq: Int { state.withLockedValue { seqBase + $0.events.count } }
    var finishedAt: Date? { state.withLockedValue { $0.finishedAt } }

    /// Moves a queued job to running and hands over its image; nil when it was canceled meanwhile.
    func start(now: Date) -> [UInt8]? {
        let image: [UInt8]? = state.withLockedValue { s in
            guard s.jobState == .queued, let image = s.image else { return nil }
            s.image = nil
            s.startedAt = now
            return image
        }
        guard let image else { return nil }
        publish(state: .running, stage: .decoding, fraction: 0, now: now)
        return image
    }

    /// Appends an event and delivers it to every subscriber, atomically. Ignored after a terminal
    /// state. The fraction is clamped so it never goes backwards.
    func appendEvent(
        state newState: JobState, stage: ScanStage, fraction: Double, now: Date,
        result: ScanResult?, error: ErrorBody?
    ) -> Bool {
        state.withLockedValue { s in
            guard !s.jobState.isTerminal || s.events.isEmpty else { return false }
            let clamped = newState == .succeeded ? 1 : max(s.fraction, min(1, max(0, fraction)))
            let event = JobEvent(
                jobId: id, seq: seqBase + s.events.count + 1, state: newState, stage: stage, fraction: clamped, timestamp: now,
                result: result, error: error)
            let frame = Self.encode(event)
            s.events.append((event, frame))
            s.jobState = newState
            s.stage = stage
            s.fraction = clamped
            s.updatedAt = now
            if newState.isTerminal {
                s.finishedAt = now
                s.result = result
                s.error = error
                s.image = nil
            }
            for (continuation, after) in s.subscribers.values {
                if event.seq > after || newState.isTerminal {
                    continuation.yield(.event(frame, seq: event.seq, terminal: newState.isTerminal))
                }
                if newState.isTerminal { continuation.finish() }
            }
            if newState.isTerminal { s.subscribers.removeAll() }
            return true
        }
    }

    func abandon() async {
        publish(
            state: .failed, stage: .done, fraction: 0, now: Date(),
            error: ErrorBody(code: .internal, message: "the service is shutting down", retryable: true))
    }

    /// Asks the job to stop. A queued job is canceled at once; a running one at its next step.
    /// Returns true when the job was canceled here (it was still queued).
    func requestCancel(now: Date) -> Bool {
        let wasQueued: Bool = state.withLockedValue { s in
            guard !s.jobState.isTerminal else { return false }
            s.cancelRequested = true
            return s.jobState == .queued
        }
        guard wasQueued else { return false }
        return publish(
            state: .canceled, stage: .done, fraction: 0, now: now,
            error: ErrorBody(code: .canceled, message: "the job was canceled", retryable: false))
    }

    /// Registers a subscriber for events after `after`: replays them into `continuation`, then keeps
    /// it for live ones. Returns the subscriber id, or nil when `limit` subscribers are already open.
    func subscribe(after: Int, limit: Int, continuation: AsyncStream<OutgoingFrame>.Continuation) -> Int? {
        state.withLockedValue { s in
            let terminal = s.jobState.isTerminal
            guard terminal || s.subscribers.count < limit else { return nil }
            let replay = s.events.filter { $0.event.seq > after }
            for (event, frame) in replay {
                continuation.yield(.event(frame, seq: event.seq, terminal: event.state.isTerminal))
            }
            if terminal {
                // A late subscriber still gets the terminal event, even when it claims to have seen it.
                if replay.isEmpty, let last = s.events.last {
                    continuation.yield(.event(last.frame, seq: last.event.seq, terminal: true))
                }
                continuation.finish()
                return -1
            }
            let id = s.nextSubscriber
            s.nextSubscriber += 1
            s.subscribers[id] = (continuation, after)
            return id
        }
    }

    /// Removes a subscriber whose socket closed.
    func unsubscribe(_ id: Int) {
        _ = state.withLockedValue { $0.subscribers.removeValue(forKey: id) }
    }

    /// The job as `GET /v1/scans/{jobId}` shows it.
    func snapshot(ttl: Duration, now: Date) -> JobSnapshot {
        state.withLockedValue { s in
            return JobSnapshot(
                jobId: id, state: s.jobState, stage: s.stage, fraction: s.fraction, seq: seqBase + s.events.count,
                createdAt: createdAt, updatedAt: s.updatedAt, startedAt: s.startedAt, finishedAt: s.finishedAt,
                expiresAt: (s.finishedAt ?? now).addingTimeInterval(ttl.inSeconds), imageBytes: imageBytes,
                result: s.result, error: s.error, links: JobLinks(jobId: id))
        }
    }

    /// All events so far, in order (for tests and diagnostics).
    var events: [JobEvent] { state.withLockedValue { $0.events.map(\.event) } }

    private static func encode(_ event: JobEvent) -> String {
        guard let data = try? WireCoding.encode(ServerMessage.event(event)) else {
            return #"{"type":"event","event":{"seq":\#(event.seq)}}"#
        }
        return String(decoding: data, as: UTF8.self)
    }
}
