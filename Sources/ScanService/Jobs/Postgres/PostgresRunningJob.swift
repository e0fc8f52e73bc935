import BookscanBase
import Foundation
import Logging
import NIOConcurrencyHelpers
import ScanProtocol

/// One attempt at a job this instance's worker runs from the shared store: events are written in
/// order by one writer task (each in its own transaction, retried while the database is away), every
/// write fenced by the attempt's lease token (`JobTable.Attempt`), and the lease is renewed while the
/// scan runs (`LeaseKeeper`), which also carries cancel requests. An attempt that lost its lease, or
/// whose writer stalled, stops without a word (`JobStop.attemptLost`): what it would still write is
/// dropped, and another attempt finishes the job.
final class PostgresRunningJob: RunningJob {
    let id: UUID
    let attempt: JobTable.Attempt
    private let table: JobTable
    private let logger: Logger
    private let writes: AsyncStream<Write>.Continuation
    private let stopped = NIOLockedValueBox<JobStop?>(nil)
    private let ended = NIOLockedValueBox(false)
    private let keeper: LeaseKeeper
    /// Events queued but not yet written, and when the writer last moved (or the first of them came).
    private let backlog = NIOLockedValueBox(Backlog())

    private struct Backlog {
        var pending = 0
        var since = ContinuousClock.now
    }

    private struct Write: Sendable {
        let state: JobState
        let stage: ScanStage
        let fraction: Double
        let now: Date
        let result: ScanResult?
        let error: ErrorBody?
    }

    init(id: UUID, attempt: JobTable.Attempt, table: JobTable, lease: Duration, keeper: LeaseKeeper, logger: Logger) {
        self.id = id
        self.attempt = attempt
        self.table = table
        self.logger = logger
        let (stream, writes) = AsyncStream<Write>.makeStream()
        self.writes = writes
        let stopped = self.stopped
        let backlog = self.backlog
        self.keeper = keeper
        let stop: @Sendable (JobStop) -> Void = { reason in
            // A lost attempt stays lost; a cancel request never overrides that (it is the next attempt's to publish).
            stopped.withLockedValue { current in if current != .attemptLost { current = reason } }
        }
        keeper.hold(
            LeaseKeeper.Holding(
                id: id, attempt: attempt, stop: stop,
                isStalled: { backlog.withLockedValue { $0.pending > 0 && ContinuousClock.now - $0.since > Self.stallLimit(lease) } }))
        Task {
            for await write in stream {
                let outcome = await Self.write(write, id: id, attempt: attempt, table: table, isLost: { stopped.withLockedValue { $0 == .attemptLost } }, logger: logger)
                backlog.withLockedValue {
                    $0.pending -= 1
                    $0.since = ContinuousClock.now
                }
                if outcome == .notHeld {
                    // Another claim holds the job now: this attempt stops and writes nothing more.
                    stop(.attemptLost)
                }
                if write.state.isTerminal { break }
            }
            keeper.drop(attempt)
        }
    }

    var stop: JobStop? { stopped.withLockedValue { $0 } }

    func appendEvent(state: JobState, stage: ScanStage, fraction: Double, now: Date, result: ScanResult?, error: ErrorBody?) -> Bool {
        let accepted = ended.withLockedValue { ended in
            guard !ended else { return false }
            if state.isTerminal { ended = true }
            return true
        }
        guard accepted else { return false }
        backlog.withLockedValue {
            if $0.pending == 0 { $0.since = ContinuousClock.now }
            $0.pending += 1
        }
        writes.yield(Write(state: state, stage: stage, fraction: fraction, now: now, result: result, error: error))
        if state.isTerminal { writes.finish() }
        return true
    }

    /// Gives the job back (shutdown, or the attempt was given up): another claim runs it again at
    /// once. Bounded: with the database away the lease simply expires.
    func abandon() async {
        ended.withLockedValue { $0 = true }
        writes.finish()
        keeper.drop(attempt)
        let table = self.table, id = self.id, attempt = self.attempt
        _ = try? await withDatabaseDeadline(PostgresJobStore.requestDeadline) { try await table.release(id, attempt: attempt) }
    }

    /// How long the writer may make no progress before the attempt is given up (the database is away
    /// or something else holds the writer): three leases.
    static func stallLimit(_ lease: Duration) -> Duration { lease * 3 }

    /// How long one attempt to write an event may take.
    static let writeDeadline: Duration = .seconds(5)

    /// What became of one queued event.
    private enum WriteOutcome: Equatable {
        case done
        case notHeld
        case dropped
    }

    /// Writes one event, retrying with backoff while the database is unreachable (bounded: about a
    /// minute, and never once the attempt was given up); an event the fence refuses is dropped (the
    /// new holder writes).
    private static func write(
        _ write: Write, id: UUID, attempt: JobTable.Attempt, table: JobTable, isLost: @Sendable () -> Bool, logger: Logger
    ) async -> WriteOutcome {
        var delay = Duration.milliseconds(100)
        for _ in 0..<12 {
            if isLost() { return .dropped }
            do {
                // Each try is bounded: a transaction on a connection that died with the database
                // would otherwise hold the writer (and the job, whose lease keeps renewing) forever.
                let outcome = try await withDatabaseDeadline(Self.writeDeadline) {
                    try await table.write(
                        id, state: write.state, stage: write.stage, fraction: write.fraction, now: write.now, result: write.result,
                        error: write.error, attempt: attempt)
                }
                if case .notHeld = outcome { return .notHeld }
                return .done
            } catch {
                logger.warning("writing an event failed; retrying", metadata: ["job": "\(id)", "error": "\(String(describing: error).prefix(160))"])
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(8))
            }
        }
        return .dropped
    }
}
