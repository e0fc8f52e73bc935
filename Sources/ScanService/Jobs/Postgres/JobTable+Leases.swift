import BookscanBase
import Foundation
import Logging
import NIOCore
import PostgresNIO
import ScanProtocol

/// Workers on every instance share the queue: a claim takes the oldest job that is queued or whose
/// lease expired (its instance died), with `FOR UPDATE SKIP LOCKED` so concurrent claimers never
/// wait for or take the same row; the lease is renewed while the scan runs and given up on shutdown.
/// Lease times are the database's clock, so instances need not agree on theirs.
extension JobTable {
    /// A job a worker holds: its image and which attempt this is.
    struct Claim: Sendable {
        let id: UUID
        let attempt: Int
        let image: [UInt8]
    }

    /// Claims the next job for `owner` with a lease of `lease`; a job already tried `maxAttempts`
    /// times is failed instead (its subscribers see the terminal event). Nil when nothing is claimable.
    func claim(owner: String, lease: Duration, maxAttempts: Int, now: Date) async throws -> Claim? {
        let logger = self.logger
        let seconds = lease.inSeconds
        while true {
            let outcome: ClaimOutcome = try await client.withTransaction(logger: logger) { connection in
                let rows = try await connection.query(
                    """
                    WITH next AS (
                        SELECT id FROM bookscan_jobs
                        WHERE state IN ('queued', 'running') AND (lease_owner IS NULL OR lease_expires_at < now())
                        ORDER BY created_at LIMIT 1
                        FOR UPDATE SKIP LOCKED)
                    UPDATE bookscan_jobs AS j
                    SET lease_owner = \(owner), lease_expires_at = now() + make_interval(secs => \(seconds)), attempts = j.attempts + 1,
                        started_at = COALESCE(j.started_at, \(now))
                    FROM next WHERE j.id = next.id
                    RETURNING j.id, j.attempts, j.cancel_requested
                    """, logger: logger
                ).decode((UUID, Int, Bool).self)
                guard let (id, attempt, canceled) = try await rows.first(where: { _ in true }) else { return .none }
                if canceled || attempt > maxAttempts {
                    let error =
                        canceled
                        ? ErrorBody(code: .canceled, message: "the job was canceled", retryable: false)
                        : ErrorBody(code: .internal, message: "gave up after \(maxAttempts) attempts (the instances running it stopped)", retryable: true)
                    _ = try await Self.append(
                        id, state: canceled ? .canceled : .failed, stage: .done, fraction: 0, now: now, result: nil, error: error, owner: owner,
                        on: connection, logger: logger)
                    return .skipped
                }
                let image = try await connection.query("SELECT bytes FROM bookscan_images WHERE job_id = \(id)", logger: logger)
                    .decode(ByteBuffer.self).first { _ in true }
                guard let image else { return .skipped }
                return .claimed(Claim(id: id, attempt: attempt, image: Array(image.readableBytesView)))
            }
            switch outcome {
            case .none: return nil
            case .skipped: continue
            case .claimed(let claim): return claim
            }
        }
    }

    private enum ClaimOutcome: Sendable {
        case none
        case skipped
        case claimed(Claim)
    }

    /// Extends `owner`'s leases on `ids` in one statement: for each job still held, whether someone
    /// asked it to stop; a job missing from the answer is no longer held (lost or ended).
    func renew(_ ids: [UUID], owner: String, lease: Duration) async throws -> [UUID: Bool] {
        let logger = self.logger, seconds = lease.inSeconds
        return try await client.withConnection { connection in
            var held: [UUID: Bool] = [:]
            let rows = try await connection.query(
                """
                UPDATE bookscan_jobs SET lease_expires_at = now() + make_interval(secs => \(seconds))
                WHERE id = ANY(\(ids)) AND lease_owner = \(owner) AND state NOT IN ('succeeded', 'failed', 'canceled')
                RETURNING id, cancel_requested
                """, logger: logger)
            for try await (id, canceled) in rows.decode((UUID, Bool).self) { held[id] = canceled }
            return held
        }
    }

    /// Gives up `owner`'s lease on `id` (shutdown): another instance may claim the job at once.
    func release(_ id: UUID, owner: String) async throws {
        let logger = self.logger
        try await client.withConnection { connection in
            let note = "\(id.uuidString.lowercased()):0\(Self.newJobMark)"
            try await connection.execute(
                """
                WITH released AS (
                    UPDATE bookscan_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE id = \(id) AND lease_owner = \(owner) RETURNING id)
                SELECT pg_notify(\(Self.eventsChannel), \(note)) FROM released
                """, logger: logger)
        }
    }

    /// Asks a job to stop: a job no worker holds ends at once (canceled), a running one is flagged
    /// for its worker. The snapshot afterwards; nil when unknown or expired.
    func requestCancel(_ id: UUID, now: Date) async throws -> JobSnapshot? {
        let logger = self.logger, ttl = self.ttl
        return try await client.withTransaction(logger: logger) { connection in
            let rows = try await connection.query(
                "SELECT state, lease_owner IS NOT NULL AND lease_expires_at > now() FROM bookscan_jobs WHERE id = \(id) FOR UPDATE", logger: logger
            ).decode((String, Bool).self)
            guard let (state, held) = try await rows.first(where: { _ in true }) else { return nil }
            if JobState(rawValue: state)?.isTerminal == false {
                if held {
                    try await connection.execute("UPDATE bookscan_jobs SET cancel_requested = true WHERE id = \(id)", logger: logger)
                } else {
                    _ = try await Self.append(
                        id, state: .canceled, stage: .done, fraction: 0, now: now, result: nil,
                        error: ErrorBody(code: .canceled, message: "the job was canceled", retryable: false), owner: nil, on: connection, logger: logger)
                }
            }
            return try await Self.snapshot(id, on: connection, ttl: ttl, now: now, logger: logger)
        }
    }
}
