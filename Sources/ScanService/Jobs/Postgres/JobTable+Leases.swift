import BookscanBase
import Foundation
import Logging
import NIOCore
import PostgresNIO
import ScanProtocol

/// Workers on every instance share the queue: a claim takes the oldest job that is queued or whose
/// lease expired (its attempt stalled or its instance died), with `FOR UPDATE SKIP LOCKED` so
/// concurrent claimers never wait for or take the same row; the lease is renewed while the scan runs
/// and given up on shutdown. Every claim gets a lease token of its own, and every write, renewal and
/// release is fenced by it: an attempt whose lease another claim took (even one by the same instance)
/// writes nothing more. Lease times are the database's clock, so instances need not agree on theirs.
extension JobTable {
    /// One claim of a job: the fence its worker's writes carry.
    struct Attempt: Sendable, Hashable {
        /// Unique per claim: the job's `lease_token` while this attempt holds it.
        let token: UUID
        /// 1 for the first run of the job, 2 for the next…
        let number: Int
        /// The claiming instance's name (for operators; the fence is the token).
        let owner: String
    }

    /// A job a worker holds: its image and which attempt this is.
    struct Claim: Sendable {
        let id: UUID
        let attempt: Attempt
        let image: [UInt8]
    }

    /// Claims the next job for `owner` with a lease of `lease`; a job already tried `maxAttempts`
    /// times is failed instead (its subscribers see the terminal event). Nil when nothing is claimable.
    func claim(owner: String, lease: Duration, maxAttempts: Int, now: Date) async throws -> Claim? {
        let logger = self.logger
        let seconds = lease.inSeconds
        while true {
            let token = UUID()
            let outcome: ClaimOutcome = try await client.withTransaction(logger: logger) { connection in
                let rows = try await connection.query(
                    """
                    WITH next AS (
                        SELECT id FROM bookscan_jobs
                        WHERE state IN ('queued', 'running') AND (lease_owner IS NULL OR lease_expires_at IS NULL OR lease_expires_at < now())
                        ORDER BY created_at LIMIT 1
                        FOR UPDATE SKIP LOCKED)
                    UPDATE bookscan_jobs AS j
                    SET lease_owner = \(owner), lease_token = \(token), lease_expires_at = now() + make_interval(secs => \(seconds)),
                        attempts = j.attempts + 1, started_at = COALESCE(j.started_at, \(now))
                    FROM next WHERE j.id = next.id
                    RETURNING j.id, j.attempts, j.cancel_requested
                    """, logger: logger
                ).decode((UUID, Int, Bool).self)
                guard let (id, number, canceled) = try await rows.first(where: { _ in true }) else { return .none }
                let attempt = Attempt(token: token, number: number, owner: owner)
                if canceled || number > maxAttempts {
                    let error =
                        canceled
                        ? ErrorBody(code: .canceled, message: "the job was canceled", retryable: false)
                        : ErrorBody(code: .internal, message: "gave up after \(maxAttempts) attempts (the instances running it stopped)", retryable: true)
                    _ = try await Self.append(
                        id, state: canceled ? .canceled : .failed, stage: .done, fraction: 0, now: now, result: nil, error: error, attempt: attempt,
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

    /// Extends the leases of the attempts with `tokens` in one statement: for each still held (by
    /// token), whether someone asked its job to stop; a token missing from the answer no longer holds
    /// its job (another claim took it, or the job ended).
    func renew(_ tokens: [UUID], lease: Duration) async throws -> [UUID: Bool] {
        let logger = self.logger, seconds = lease.inSeconds
        return try await client.withConnection { connection in
            var held: [UUID: Bool] = [:]
            let rows = try await connection.query(
                """
                UPDATE bookscan_jobs SET lease_expires_at = now() + make_interval(secs => \(seconds))
                WHERE lease_token = ANY(\(tokens)) AND state NOT IN ('succeeded', 'failed', 'canceled')
                RETURNING lease_token, cancel_requested
                """, logger: logger)
            for try await (token, canceled) in rows.decode((UUID, Bool).self) { held[token] = canceled }
            return held
        }
    }

    /// Gives up `attempt`'s lease on `id` (shutdown, or its writer stalled): another claim may take
    /// the job at once. Nothing happens when the attempt no longer holds it.
    func release(_ id: UUID, attempt: Attempt) async throws {
        let logger = self.logger
        try await client.withConnection { connection in
            let note = "\(id.uuidString.lowercased()):0\(Self.newJobMark)"
            try await connection.execute(
                """
                WITH released AS (
                    UPDATE bookscan_jobs SET lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
                    WHERE id = \(id) AND lease_token = \(attempt.token) RETURNING id)
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
                        error: ErrorBody(code: .canceled, message: "the job was canceled", retryable: false), attempt: nil, on: connection, logger: logger)
                }
            }
            return try await Self.snapshot(id, on: connection, ttl: ttl, now: now, logger: logger)
        }
    }
}
