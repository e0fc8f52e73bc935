import BookscanBase
import Foundation
import Logging
import NIOConcurrencyHelpers
import ScanProtocol

/// A job this instance's worker runs from the shared store: events are written in order by one
/// writer task (each in its own transaction, retried while the database is away, never once the
/// lease is lost), and the lease is renewed while the scan runs (`LeaseKeeper`), which also carries cancel requests;
/// a scan whose lease was lost stops (what it would write is refused: the new holder writes).
final class PostgresRunningJob: RunningJob {
    let id: UUID
    private let owner: String
    private let table: JobTable
    private let logger: Logger
    private let writes: AsyncStream<Write>.Continuation
    private let cancelRequested = NIOLockedValueBox(false)
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

    init(id: UUID, owner: String, table: JobTable, lease: Duration, keeper: LeaseKeeper, logger: Logger) {
        self.id = id
        self.owner = owner
        self.table = table
        self.logger = logger
        let (stream, writes) = AsyncStream<Write>.makeStream()
        self.writes = writes
        let canceled = cancelRequested
        let backlog = self.backlog
        self.keeper = keeper
        keeper.hold(
            id,
            LeaseKeeper.Holding(
                stop: { canceled.withLockedValue { $0 = true } },
                isStalled: { backlog.withLockedValue { $0.pending > 0 && ContinuousClock.now - $0.since > Self.stallLimit(lease) } }))
        Task {
            for await write in stream {
                await Self.write(write, id: id, owner: owner, table: table, logger: logger)
                backlog.withLockedValue {
                    $0.pending -= 1
                    $0.since = ContinuousClock.now
                }
                if write.state.isTerminal { break }
            }
            keeper.drop(id)
        }
    }

    var isCancelRequested: Bool { cancelRequested.withLockedValue { $0 } }

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

    /// Gives the job back (shutdown): another instance runs it again at once.
    func abandon() async {
        ended.withLockedValue { $0 = true }
        writes.finish()
        keeper.drop(id)
        try? await table.release(id, owner: owner)
    }

    /// How long the writer may make no progress before the job is given up (the database answers
    /// renewals, so something else holds the writer): three leases.
    static func stallLimit(_ lease: Duration) -> Duration { lease * 3 }

    /// How long one attempt to write an event may take.
    static let attemptDeadline: Duration = .seconds(5)

    /// Writes one event, retrying with backoff while the database is unreachable (bounded: about a
    /// minute); an event refused because the lease was lost is dropped (the new holder writes).
    private static func write(_ write: Write, id: UUID, owner: String, table: JobTable, logger: Logger) async {
        var delay = Duration.milliseconds(100)
        for _ in 0..<12 {
            do {
                // Each attempt is bounded: a transaction on a connection that died with the database
                // would otherwise hold the writer (and the job, whose lease keeps renewing) forever.
                _ = try await withDatabaseDeadline(Self.attemptDeadline) {
                    try await table.append(
                        id, state: write.state, stage: write.stage, fraction: write.fraction, now: write.now, result: write.result,
                        error: write.error, owner: owner)
                }
                return
            } catch {
                logger.warning("writing an event failed; retrying", metadata: ["job": "\(id)", "error": "\(String(describing: error).prefix(160))"])
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(8))
            }
        }
    }
}
