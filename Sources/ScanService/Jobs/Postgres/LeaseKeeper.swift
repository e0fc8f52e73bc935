import Foundation
import Logging
import NIOConcurrencyHelpers

/// Renews the leases of every attempt this instance runs in one statement per interval (a third of
/// the lease), not one per job: the renewal carries cancel requests back, an attempt whose lease was
/// lost (it expired while the database was away and another claim took it) is told to stop, and an
/// attempt whose event writer has not moved for several leases gives its attempt up, for another
/// claim (another instance's, or this one's once the database is back) to finish the job.
/// Attempts are held by their lease token, never by job id: the same instance may claim a job again
/// while an earlier attempt of it still winds down, and each keeps its own entry.
final class LeaseKeeper: Sendable {
    /// What the keeper knows of one held attempt.
    struct Holding: Sendable {
        let id: UUID
        let attempt: JobTable.Attempt
        /// Tells the attempt to stop, and why.
        let stop: @Sendable (JobStop) -> Void
        /// Whether the attempt's event writer has made no progress for too long.
        let isStalled: @Sendable () -> Bool
    }

    private let held = NIOLockedValueBox<[UUID: Holding]>([:])
    private let table: JobTable
    private let lease: Duration
    private let metrics: ServiceMetrics
    private let logger: Logger

    init(table: JobTable, lease: Duration, metrics: ServiceMetrics, logger: Logger) {
        self.table = table
        self.lease = lease
        self.metrics = metrics
        self.logger = logger
    }

    func hold(_ holding: Holding) { held.withLockedValue { $0[holding.attempt.token] = holding } }
    func drop(_ attempt: JobTable.Attempt) { held.withLockedValue { $0[attempt.token] = nil } }

    /// Renews until the task is canceled; a failed round (the database away) is retried next interval.
    func run() async {
        while (try? await Task.sleep(for: lease / 3)) != nil {
            await renewOnce()
        }
    }

    /// One round: stalled attempts given up, every other held lease extended in one statement.
    func renewOnce() async {
        let holdings = held.withLockedValue { $0 }
        guard !holdings.isEmpty else { return }
        var renewing: [UUID] = []
        for (token, holding) in holdings {
            if holding.isStalled() {
                logger.warning(
                    "event writer stalled; giving the attempt up", metadata: ["job": "\(holding.id)", "attempt": "\(holding.attempt.number)"])
                holding.stop(.attemptLost)
                drop(holding.attempt)
                // Best effort: when the database is still away the lease simply expires.
                let table = self.table, id = holding.id, attempt = holding.attempt
                Task { _ = try? await withDatabaseDeadline(PostgresJobStore.requestDeadline) { try await table.release(id, attempt: attempt) } }
            } else {
                renewing.append(token)
            }
        }
        guard !renewing.isEmpty else { return }
        let renewed: [UUID: Bool]
        do {
            renewed = try await withDatabaseDeadline(lease / 3) { [table, lease, renewing] in try await table.renew(renewing, lease: lease) }
        } catch {
            return  // the database is away: the leases hold for their length; try again next round
        }
        for token in renewing {
            guard let holding = holdings[token] else { continue }
            guard let canceled = renewed[token] else {
                // Lost or ended: this attempt no longer runs the job.
                holding.stop(.attemptLost)
                drop(holding.attempt)
                continue
            }
            metrics.leaseRenewed()
            if canceled { holding.stop(.canceled) }
        }
    }
}
