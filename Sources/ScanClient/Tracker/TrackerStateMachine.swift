import BookscanBase
package import Foundation
package import RunModel
package import ScanProtocol

/// The hybrid progress tracker as a pure state machine: inputs are socket and event-stream (SSE)
/// reports, poll results and timer ticks; outputs are actions for a thin async driver. In `auto` it
/// climbs down the ladder WebSocket → event stream → polling, and back up when a transport heals. Nothing here touches a socket or a
/// clock, so every transition is testable on its own.
///
/// Shape: a phase, `running(TrackerRun)` or `finished(FinishedRun)`. A run (`TrackerRun.swift`) holds one leg per transport
/// (`SocketLeg`, `EventStreamLeg`, `PollingLeg`), each with its own small state enum (the socket's
/// hedge is part of its `carrying` state) that only the leg's own inputs change, the `EventMerge`, the
/// `LagWatch` and the counters; every input goes through `advance`, which switches on the phase, and
/// the run routes it to its legs and returns the actions. A finished run
/// keeps only what it reports: the counters, the merge and the strategy.
///
/// Invariants, for every run, path mix and fault:
/// - the events of every path go through one `EventMerge`: an event is delivered (emitted) only if
///   its `seq` is higher than the last one delivered and it is not behind it, so the emitted seq is
///   strictly increasing and state, stage and fraction never go backwards (a resubmitted job's run
///   continues from what the first run showed); an older event still counts for the contiguity
///   `after=` resumes from, but is never news (not delivered, not counted);
/// - the displayed fraction never decreases;
/// - the ending is reported exactly once, as the last action of its batch (so at most one terminal
///   event is delivered), and with it every socket is closed and every timer cancelled; a finished
///   machine answers every input with no action;
/// - the strategy is classified from what happened (which path was carrying the job at the end,
///   whether a socket ever carried frames), never from which path happened to deliver the end first;
///   it is fixed when the run finishes;
/// - a transport found behind (`auto`: a poll showed news it did not deliver within `maxLag`, while it
///   kept sending) is left for the rest of the run, its failure `lagging`; what the poll showed was
///   already delivered through the same merge (see `LagWatch`).
package struct TrackerStateMachine: Sendable {
    package let mode: TrackerMode
    /// Where the `auto` ladder starts: `.sse` when adaptive memory knows the WebSocket fails here.
    package let ladderStart: StreamTransport
    package let settings: TrackerSettings
    private var phase: Phase

    /// `continuing`: the last event a previous submission of the same job showed (a resubmission
    /// after the server lost the job); this run's stream goes on from it. `eventStreamAvailable`:
    /// false when the server says it has no event stream (the ladder goes from the WebSocket to polling).
    /// `socketWaitsForUpload`: the driver opens a socket only once the upload is accepted (a batch's
    /// shared socket subscribes existing jobs only): then a refusal can never be the upgrade racing the upload.
    package init(
        mode: TrackerMode, settings: TrackerSettings = .init(), seed: UInt64 = 0x5EED, continuing: JobEvent? = nil,
        ladderStart: StreamTransport = .websocket, eventStreamAvailable: Bool = true, socketWaitsForUpload: Bool = false
    ) {
        self.mode = mode
        self.ladderStart = mode == .auto ? ladderStart : .websocket
        self.settings = settings
        phase = .running(
            TrackerRun(
                mode: mode, ladderStart: self.ladderStart, settings: settings, seed: seed, continuing: continuing,
                eventStreamAvailable: eventStreamAvailable, socketWaitsForUpload: socketWaitsForUpload))
    }

    /// Upgrade refusals a retry cannot change within a run (after the one free retry of an upgrade
    /// that raced ahead of the upload): the socket is given up and polling carries the run.
    /// 429, 500, 502 and 504 (and an unknown status) may be transient and are retried with backoff.
    package static let finalRefusals: Set<Int> = [400, 404, 405, 410, 426, 501, 503, 505]

    // MARK: what the driver and the report read

    /// The run's counters.
    package var metrics: TrackerMetrics {
        switch phase {
        case .running(let run): run.metrics
        case .finished(let finished): finished.metrics
        }
    }

    /// What has been seen and shown, from every path.
    package var merge: EventMerge {
        switch phase {
        case .running(let run): run.merge
        case .finished(let finished): finished.merge
        }
    }

    /// Whether the ending has been reported.
    package var finished: Bool {
        switch phase {
        case .running: false
        case .finished: true
        }
    }

    /// The strategy that carried the run (meaningful once finished), from what actually happened:
    /// the WebSocket if a socket with frames was carrying the job at the end (whichever path
    /// delivered the end first); else the event stream if it was carrying it; polling after a
    /// failure (of the event stream when it was tried and failed, else of the WebSocket) if polling
    /// was following the job; nil when nothing carried anything (e.g. interrupted or timed out
    /// before any frame or poll, or a forced transport that never carried the job).
    package var strategy: ProgressStrategy? {
        switch phase {
        case .running(let run): run.strategy
        case .finished(let finished): finished.strategy
        }
    }

    /// The highest seq below which every event has been seen; sockets resume after it.
    package var resumeAfter: Int { merge.contiguous }

    /// Whether a refused upgrade should be probed with a plain GET to learn its status: not when the
    /// event stream is in the ladder (its request on the same route answers that).
    package var probesRefusedUpgrades: Bool {
        switch phase {
        case .running(let run): run.probesRefusedUpgrades
        case .finished: true
        }
    }

    // MARK: inputs

    /// The run begins; the upload may still be in flight. The socket opens now: order does not matter.
    package mutating func start() -> [Action] { advance { $0.start() } }

    /// The server accepted the upload and returned this snapshot (which arrived at `receivedAt`, when known).
    package mutating func uploadAccepted(_ snapshot: JobSnapshot, receivedAt: Date? = nil) -> [Action] {
        advance { $0.uploadAccepted(snapshot, receivedAt: receivedAt) }
    }

    package mutating func socketOpened(connection: Int) -> [Action] { advance { $0.socketOpened(connection: connection) } }

    /// A frame arrived on a socket (at `receivedAt`, when known: it tells how far behind the socket is).
    package mutating func socketMessage(connection: Int, _ message: ServerMessage, receivedAt: Date? = nil) -> [Action] {
        advance { $0.socketMessage(connection: connection, message, receivedAt: receivedAt) }
    }

    /// A socket could not open, or closed; either way it no longer carries the job.
    package mutating func socketEnded(connection: Int, _ end: SocketEnd) -> [Action] {
        advance { $0.socketEnded(connection: connection, end) }
    }

    /// The server answered the stream request with 200 and an event stream.
    package mutating func streamOpened(connection: Int) -> [Action] { advance { $0.streamOpened(connection: connection) } }

    /// Bytes arrived on the stream: the events they completed and the heartbeats among them (none of
    /// either for the stream's opening, which only proves that no proxy buffers the response), the
    /// highest latest seq and the latest server time those heartbeats named, and when the bytes arrived (when known).
    package mutating func streamReceived(
        connection: Int, _ events: [JobEvent], heartbeats: Int = 0, heartbeatLatestSeq: Int? = nil, heartbeatTime: Date? = nil,
        receivedAt: Date? = nil
    ) -> [Action] {
        let heartbeat = heartbeatLatestSeq.map { (latestSeq: $0, timestamp: heartbeatTime) }
        return advance { $0.streamReceived(connection: connection, events, heartbeats: heartbeats, heartbeat: heartbeat, receivedAt: receivedAt) }
    }

    /// The stream could not open, or ended; either way it no longer carries the job.
    package mutating func streamEnded(connection: Int, _ end: SocketEnd) -> [Action] {
        advance { $0.streamEnded(connection: connection, end) }
    }

    /// A status poll's outcome (which arrived at `receivedAt`, when known).
    package mutating func pollResult(_ outcome: PollOutcome, receivedAt: Date? = nil) -> [Action] {
        advance { $0.pollResult(outcome, receivedAt: receivedAt) }
    }

    /// A timer the driver scheduled fired (stale ones are filtered out by the driver).
    package mutating func timerFired(_ timer: TrackerTimer) -> [Action] { advance { $0.timerFired(timer) } }

    /// `--timeout` passed.
    package mutating func deadlineExceeded() -> [Action] { advance { $0.finish(.timedOut) } }

    /// The user pressed Ctrl-C.
    package mutating func interrupted() -> [Action] { advance { $0.finish(.interrupted) } }

    /// Runs one input on a running run; a batch that ends with `.finish` finishes the machine, with
    /// the run as it was when it decided to finish.
    private mutating func advance(_ input: (inout TrackerRun) -> [Action]) -> [Action] {
        switch phase {
        case .finished:
            return []
        case .running(var run):
            let actions = input(&run)
            phase = actions.endsRun ? .finished(FinishedRun(metrics: run.metrics, merge: run.merge, strategy: run.strategy)) : .running(run)
            return actions
        }
    }
}

// MARK: - phases

extension TrackerStateMachine {
    /// Whether the run is still being followed, and what it holds in each phase.
    private enum Phase: Sendable {
        case running(TrackerRun)
        case finished(FinishedRun)
    }

    /// What a finished run reports; nothing in it changes any more.
    private struct FinishedRun: Sendable {
        let metrics: TrackerMetrics
        let merge: EventMerge
        let strategy: ProgressStrategy?
    }
}
