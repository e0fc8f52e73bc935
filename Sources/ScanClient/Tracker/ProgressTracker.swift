import BookscanBase
package import Foundation
package import Logging
package import RunModel
package import ScanProtocol

/// The result of following one job: how it ended, which strategy carried it, and the numbers.
package struct TrackedRun: Sendable {
    package var ending: TrackerEnding
    /// What carried the run; nil when neither a socket nor polling did (see `TrackerStateMachine.strategy`).
    package var strategy: ProgressStrategy?
    package var metrics: TrackerMetrics
    /// Seconds from the start of tracking (= start of the upload) to the upload being accepted.
    package var uploadSeconds: Double?
    /// Seconds from the upload being accepted to the first event from the socket or a poll.
    package var firstEventSeconds: Double?
    /// Seconds from the start to the end.
    package var totalSeconds: Double
    /// The last event shown (delivered), if any: a resubmission's run continues from it.
    package var lastShown: JobEvent?
}

/// Receives what the tracker accepts, as it happens (on the tracker's task).
package struct TrackerObserver: Sendable {
    /// An accepted event, its path, and the fraction to show (never lower than before).
    package var event: @Sendable (JobEvent, EventPath, Double) -> Void
    /// The path currently carrying progress changed (`ws` / `sse` / `poll`).
    package var path: @Sendable (EventPath) -> Void

    package init(event: @escaping @Sendable (JobEvent, EventPath, Double) -> Void = { _, _, _ in }, path: @escaping @Sendable (EventPath) -> Void = { _ in }) {
        self.event = event
        self.path = path
    }
}

/// The thin async shell around `TrackerStateMachine`: opens sockets, polls, runs timers, and feeds
/// every outcome back as an input, one at a time, until the machine says `finish`.
package struct ProgressTracker: Sendable {
    package let api: ScanAPI
    package let mode: TrackerMode
    /// Where the `auto` ladder starts (the event stream when adaptive memory skips the WebSocket).
    package let ladderStart: StreamTransport
    /// Whether the server offers an event stream (`/v1/limits`); without it `auto` skips that step.
    package let eventStreamAvailable: Bool
    package let settings: TrackerSettings
    package let clientPingInterval: Duration
    package let logger: Logger
    /// When set, the job's WebSocket is a subscription on this shared link (a batch's one socket)
    /// instead of a socket of its own; everything else is the same.
    package var sharedSocket: SharedEventSocket?

    package init(
        api: ScanAPI, mode: TrackerMode, settings: TrackerSettings = .init(), clientPingInterval: Duration = .seconds(15),
        logger: Logger = Logger(label: "bookscan.tracker"), ladderStart: StreamTransport = .websocket, eventStreamAvailable: Bool = true
    ) {
        self.eventStreamAvailable = eventStreamAvailable
        self.api = api
        self.mode = mode
        self.ladderStart = ladderStart
        self.settings = settings
        self.clientPingInterval = clientPingInterval
        self.logger = logger
    }

    /// A timer firing later than this after its due time means the process itself was stalled.
    static let stallAllowance: Duration = .milliseconds(250)
    /// How often a shared-socket subscription checks whether the upload was accepted.
    static let acceptancePoll: Duration = .milliseconds(5)
    /// How long a late "no frame yet" timer waits for frames queued during the stall.
    static let stallGrace: Duration = .milliseconds(500)

    enum Input: Sendable {
        case socket(SocketReport)
        case stream(StreamReport)
        case poll(PollOutcome)
        /// A timer fired; `generation` tells a stale one (rescheduled since) from the current one.
        case timer(TrackerTimer, generation: Int)
        case uploaded(Result<JobSnapshot, ScanAPIError>)
        case deadline
        case interrupt
    }

    /// Why a tracked run ended without tracking: the upload itself failed.
    package struct UploadFailed: Error, Sendable {
        package var error: ScanAPIError
        package var seconds: Double
    }

    /// Follows `jobId`, starting the socket at once and `upload` at the same time (order does not
    /// matter: the server replays). `timeout` bounds the whole run; `interrupts` ends it when it yields.
    /// `continuing`: the last event an earlier run of a resubmitted job showed; this run goes on from it.
    package func run(
        jobId: UUID, upload: @escaping @Sendable () async -> Result<JobSnapshot, ScanAPIError>, timeout: Duration?,
        interrupts: AsyncStream<Void>? = nil, observer: TrackerObserver = .init(), continuing: JobEvent? = nil
    ) async throws(UploadFailed) -> TrackedRun {
        let clock = ContinuousClock()
        let started = clock.now
        let (inputs, inbox) = AsyncStream<Input>.makeStream()
        var machine = TrackerStateMachine(
            mode: mode, settings: settings, seed: UInt64(truncatingIfNeeded: jobId.hashValue), continuing: continuing, ladderStart: ladderStart,
            eventStreamAvailable: eventStreamAvailable, socketWaitsForUpload: sharedSocket != nil)
        var tasks = TaskBook()
        let accepted = OpenFlag()
        var connector = EventSocketConnector(api: api, pingInterval: clientPingInterval, logger: logger)
        connector.uploadAccepted = { accepted.isSet }
        connector.probesRefusals = machine.probesRefusedUpgrades
        let streamConnector = EventStreamConnector(api: api)
        var uploadSeconds: Double?
        var firstEventSeconds: Double?
        var currentPath: EventPath?
        var timerGeneration = 0
        var currentTimers: [TrackerTimer: Int] = [:]

        func seconds(since instant: ContinuousClock.Instant) -> Double { (clock.now - instant).inSeconds }

        let uploadTask = Task { inbox.yield(.uploaded(await upload())) }
        if let timeout {
            tasks.add(Task {
                try? await Task.sleep(for: timeout)
                if !Task.isCancelled { inbox.yield(.deadline) }
            })
        }
        if let interrupts {
            tasks.add(Task {
                for await _ in interrupts { inbox.yield(.interrupt); return }
            })
        }

        var ending: TrackerEnding?
        var pending = machine.start()
        var inputIterator = inputs.makeAsyncIterator()
        while ending == nil {
            for action in pending {
                switch action {
                case .openSocket(let connection, let after) where sharedSocket != nil:
                    let shared = sharedSocket
                    tasks.sockets[connection] = Task {
                        // The multiplexed route subscribes existing jobs only: wait for the upload
                        // (a one-job socket races it instead, and the server refuses until the job exists).
                        while !accepted.isSet {
                            if Task.isCancelled { return }
                            try? await Task.sleep(for: Self.acceptancePoll)
                        }
                        await shared?.follow(connection: connection, jobId: jobId, after: after) { inbox.yield(.socket($0)) }
                    }
                case .openSocket(let connection, let after):
                    tasks.sockets[connection] = Task {
                        await connector.run(connection: connection, jobId: jobId, after: after) { inbox.yield(.socket($0)) }
                    }
                case .openStream(let connection, let after):
                    tasks.sockets[connection] = Task {
                        await streamConnector.run(connection: connection, jobId: jobId, after: after) { inbox.yield(.stream($0)) }
                    }
                case .closeSocket(let connection):
                    tasks.sockets.removeValue(forKey: connection)?.cancel()
                case .schedule(let timer, let delay):
                    tasks.timers[timer]?.cancel()
                    timerGeneration += 1
                    let generation = timerGeneration
                    currentTimers[timer] = generation
                    tasks.timers[timer] = Task {
                        let due = ContinuousClock.now + delay
                        try? await Task.sleep(until: due)
                        if timer.waitsForFrames, ContinuousClock.now - due > Self.stallAllowance {
                            // This process was stalled (a timer far past its time): frames that arrived
                            // meanwhile may still be queued behind this timer. Let them through first, so
                            // a stalled client does not declare a healthy socket dead.
                            try? await Task.sleep(for: Self.stallGrace)
                        }
                        if !Task.isCancelled { inbox.yield(.timer(timer, generation: generation)) }
                    }
                case .cancel(let timer):
                    currentTimers.removeValue(forKey: timer)
                    tasks.timers.removeValue(forKey: timer)?.cancel()
                case .poll:
                    tasks.add(Task { inbox.yield(.poll(await api.poll(jobId: jobId))) })
                case .deliver(let event, let path, let fraction):
                    if path != .upload, firstEventSeconds == nil, uploadSeconds != nil {
                        firstEventSeconds = seconds(since: started) - (uploadSeconds ?? 0)
                    }
                    if path != .upload, path != currentPath {
                        currentPath = path
                        observer.path(path)
                    }
                    observer.event(event, path, fraction)
                case .finish(let end):
                    ending = end
                }
            }
            guard ending == nil, let input = await inputIterator.next() else { break }
            switch input {
            case .socket(.opened(let connection)): pending = machine.socketOpened(connection: connection)
            case .socket(.message(let connection, let message)): pending = machine.socketMessage(connection: connection, message, receivedAt: Date())
            case .socket(.ended(let connection, let end)):
                tasks.sockets.removeValue(forKey: connection)
                pending = machine.socketEnded(connection: connection, end)
            case .stream(.opened(let connection)): pending = machine.streamOpened(connection: connection)
            case .stream(.received(let connection, let events, let heartbeats, let latestSeq, let heartbeatTime)):
                pending = machine.streamReceived(
                    connection: connection, events, heartbeats: heartbeats, heartbeatLatestSeq: latestSeq, heartbeatTime: heartbeatTime,
                    receivedAt: Date())
            case .stream(.ended(let connection, let end)):
                tasks.sockets.removeValue(forKey: connection)
                pending = machine.streamEnded(connection: connection, end)
            case .poll(let outcome): pending = machine.pollResult(outcome, receivedAt: Date())
            case .timer(let timer, let generation):
                // A timer that fired just as it was rescheduled or cancelled (say, by a frame queued
                // ahead of it) is stale: the machine never sees it.
                guard currentTimers[timer] == generation else {
                    pending = []
                    continue
                }
                currentTimers.removeValue(forKey: timer)
                tasks.timers.removeValue(forKey: timer)
                pending = machine.timerFired(timer)
            case .uploaded(.success(let snapshot)):
                accepted.set()
                uploadSeconds = seconds(since: started)
                pending = machine.uploadAccepted(snapshot, receivedAt: Date())
            case .uploaded(.failure(let error)):
                await tasks.cancelAll()
                throw UploadFailed(error: error, seconds: seconds(since: started))
            case .deadline: pending = machine.deadlineExceeded()
            case .interrupt: pending = machine.interrupted()
            }
        }
        uploadTask.cancel()
        await tasks.cancelAll()
        return TrackedRun(
            ending: ending ?? .interrupted, strategy: machine.strategy, metrics: machine.metrics, uploadSeconds: uploadSeconds,
            firstEventSeconds: firstEventSeconds, totalSeconds: seconds(since: started), lastShown: machine.merge.lastShown)
    }
}

/// Every task a tracked run started, so all of them end with it.
struct TaskBook {
    var sockets: [Int: Task<Void, Never>] = [:]
    var timers: [TrackerTimer: Task<Void, Never>] = [:]
    var others: [Task<Void, Never>] = []

    mutating func add(_ task: Task<Void, Never>) {
        others.removeAll { $0.isCancelled }
        others.append(task)
    }

    /// Cancels every task and waits for the sockets to close.
    mutating func cancelAll() async {
        let sockets = Array(self.sockets.values)
        for task in sockets { task.cancel() }
        for task in timers.values { task.cancel() }
        for task in others { task.cancel() }
        for task in sockets { await task.value }
        self.sockets.removeAll()
        timers.removeAll()
        others.removeAll()
    }
}
