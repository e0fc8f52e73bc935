import Foundation
import Logging
import NIOConcurrencyHelpers

/// Renews the leases of every job this instance runs in one statement per interval (a third of the
/// lease), not one per job: the renewal carries cancel requests back, a job whose lease was lost
/// (it expired while the database was away and another instance took it) is told to stop, and a
/// job whose event writer has not moved for several leases is given up for another instance.
final class LeaseKeeper: Sendable {
    /// What the keeper knows of one held job.
    struct Holding: Sendable {
        /// Set when the job must stop (cancel requested, lease lost, writer stalled).
        let stop: @Sendable () -> Void
        /// Whether the job's event writer has made no progress for too long.
        let isStalled: @Sendable () -> Bool
    }

    private let held = NIOLockedValueBox<[UUID: Holding]>([:])
    private let table: JobTable
    private let owner: String
    private let lease: Duration
    private let metrics: ServiceMetrics
    private let logger: Logger

    init(table: JobTable, owner: String, lease: Duration, metrics: ServiceMetrics, logger: Logger) {
        self.table = table
        self.owner = owner
        self.lease = lease
        self.metrics = metrics
        self.logger = logger
    }

    func hold(_ id: UUID, _ holding: Holding) { held.withLockedValue { $0[id] = holding } }
    func drop(_ id: UUID) { held.withLockedValue { $0[id] = nil } }

    /// Renews until the task is canceled; a failed round (the database away) is retried next interval.
    func run() async {
        while (try? await Task.sleep(for: lease / 3)) != nil {
            await renewOnce()
        }
    }

    /// One round: stalled jobs given up, every other held lease extended in one statement.
    func renewOnce() async {
        let holdings = held.withLockedValue { $0 }
        guard !holdings.isEmpty else { return }
        var renewing: [UUID] = []
        for (id, holding) in holdings {
            if holding.isStalled() {
                logger.warning("event writer stalled; giving the job up", metadata: ["job": "\(id)"])
                holding.stop()
                drop(id)
                try? await table.release(id, owner: owner)
            } else {
                renewing.append(id)
            }
        }
        guard !renewing.isEmpty else { return }
        let renewed: [UUID: Bool]
        do {
            renewed = try await withDatabaseDeadline(lease / 3) { [table, owner, lease, renewing] in try await table.renew(renewing, owner: owner, lease: lease) }
        } catch {
            return  // the database is away: the leases hold for their length; try again next round
        }
        for id in renewing {
            guard let canceled = renewed[id] else {
                // Lost or ended: this instance no longer runs it.
                holdings[id]?.stop()
                drop(id)
                continue
            }
            metrics.leaseRenewed()
            if canceled { holdings[id]?.stop() }
        }
    }
}
