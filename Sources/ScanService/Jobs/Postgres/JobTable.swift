import BookscanBase
import Foundation
import Logging
import NIOCore
import PostgresNIO
import ScanProtocol

/// The job store's rows in PostgreSQL: jobs, their ordered events (the source of truth for
/// replay) and uploaded images. Every state change and its event are written in one transaction,
/// and each commit notifies `bookscan_events` with `job:seq` (a latency hint only: readers catch up
/// from the events table by seq).
struct JobTable: Sendable {
    let client: PostgresClient
    let ttl: Duration
    let logger: Logger

    /// The NOTIFY channel of new events; the payload is `jobId:seq`, with `newJobMark` appended when
    /// the job became claimable (admitted, or given back), so only those wake idle workers.
    static let eventsChannel = "bookscan_events"
    static let newJobMark = ":new"

    init(client: PostgresClient, ttl: Duration, logger: Logger) {
        self.client = client
        self.ttl = ttl
        self.logger = logger
    }

    /// Creates and queues a job with its first event, or returns the existing one (same digest) or a
    /// conflict, in one transaction; two instances admitting the same id at once make one job (the
    /// loser of the primary key finds the winner's row). `queueCapacity` bounds queued jobs.
    func admit(id: UUID, image: [UInt8], digest: [UInt8], seqAfter: Int, now: Date, queueCapacity: Int) async throws -> Admission {
        let logger = self.logger, ttl = self.ttl
        return try await client.withTransaction(logger: logger) { connection in
            // A job past its TTL that the reaper has not deleted yet is gone for every reader: its id is free again.
            try await connection.execute(
                "DELETE FROM bookscan_jobs WHERE id = \(id) AND finished_at IS NOT NULL AND finished_at <= now() - make_interval(secs => \(ttl.inSeconds))",
                logger: logger)
            let queued = try await connection.query("SELECT count(*) FROM bookscan_jobs WHERE state = 'queued'", logger: logger)
                .decode(Int.self).first { _ in true } ?? 0
            let event = JobEvent(jobId: id, seq: seqAfter + 1, state: .queued, stage: .queued, fraction: 0, timestamp: now)
            let inserted = try await connection.query(
                """
                INSERT INTO bookscan_jobs (id, digest, state, stage, fraction, latest_seq, image_bytes, created_at, updated_at)
                SELECT \(id), \(ByteBuffer(bytes: digest)), 'queued', 'queued', 0, \(event.seq), \(image.count), \(now), \(now)
                WHERE \(queued) < \(queueCapacity)
                ON CONFLICT (id) DO NOTHING RETURNING id
                """, logger: logger
            ).decode(UUID.self).first { _ in true }
            if inserted != nil {
                try await connection.execute("INSERT INTO bookscan_images (job_id, bytes) VALUES (\(id), \(ByteBuffer(bytes: image)))", logger: logger)
                try await Self.insert(event, on: connection, logger: logger)
                return .created(try await Self.snapshot(id, on: connection, ttl: ttl, now: now, logger: logger) ?? Self.fallback(event, bytes: image.count, ttl: ttl))
            }
            if let existing = try await Self.admission(id, digest: digest, on: connection, ttl: ttl, now: now, logger: logger) { return existing }
            return .queueFull
        }
    }

    /// The existing job under `id` compared with an upload's digest; nil when unknown or expired.
    func lookup(_ id: UUID, digest: [UInt8], now: Date) async throws -> Admission? {
        let logger = self.logger, ttl = self.ttl
        return try await client.withConnection { connection in
            try await Self.admission(id, digest: digest, on: connection, ttl: ttl, now: now, logger: logger)
        }
    }

    /// The job as `GET /v1/scans/{jobId}` shows it; nil when unknown or expired.
    func snapshot(_ id: UUID, now: Date) async throws -> JobSnapshot? {
        let logger = self.logger, ttl = self.ttl
        return try await client.withConnection { connection in try await Self.snapshot(id, on: connection, ttl: ttl, now: now, logger: logger) }
    }

    /// Appends the next event of a job (seq = latest + 1) and moves the job with it, in one
    /// transaction; the fraction never goes below the job's. Nothing is written after a terminal
    /// event. Returns the event written, or nil.
    /// `attempt`: the claim whose worker writes; when given, nothing is written unless that claim
    /// still holds the job (its lease token is the job's), so two attempts never both write.
    func append(
        _ id: UUID, state: JobState, stage: ScanStage, fraction: Double, now: Date, result: ScanResult? = nil, error: ErrorBody? = nil,
        attempt: Attempt? = nil
    ) async throws -> JobEvent? {
        if case .written(let event) = try await write(
            id, state: state, stage: stage, fraction: fraction, now: now, result: result, error: error, attempt: attempt)
        {
            return event
        }
        return nil
    }

    /// `append`, with why nothing was written when nothing was.
    func write(
        _ id: UUID, state: JobState, stage: ScanStage, fraction: Double, now: Date, result: ScanResult?, error: ErrorBody?, attempt: Attempt?
    ) async throws -> AppendOutcome {
        let logger = self.logger
        return try await client.withTransaction(logger: logger) { connection in
            try await Self.append(
                id, state: state, stage: stage, fraction: fraction, now: now, result: result, error: error, attempt: attempt, on: connection,
                logger: logger)
        }
    }

    /// What an append did.
    enum AppendOutcome: Sendable {
        /// The event was written with this seq.
        case written(JobEvent)
        /// A rerun replays progress its subscribers already saw: nothing new, nothing written.
        case behind
        /// The writing attempt no longer holds the job (another claim took it, or it was given back).
        case notHeld
        /// The job is unknown or already ended.
        case ended
    }

    /// `append` inside a transaction the caller holds.
    static func append(
        _ id: UUID, state: JobState, stage: ScanStage, fraction: Double, now: Date, result: ScanResult?, error: ErrorBody?, attempt: Attempt?,
        on connection: PostgresConnection, logger: Logger
    ) async throws -> AppendOutcome {
        let rows = try await connection.query(
            "SELECT state, latest_seq, fraction, lease_token, stage FROM bookscan_jobs WHERE id = \(id) FOR UPDATE", logger: logger
        ).decode((String, Int, Double, UUID?, String).self)
        guard let (current, latest, shown, token, shownStage) = try await rows.first(where: { _ in true }),
            let currentState = JobState(rawValue: current), !currentState.isTerminal
        else { return .ended }
        if let attempt, token != attempt.token { return .notHeld }
        let clamped = state == .succeeded ? 1 : max(shown, min(1, max(0, fraction)))
        if !state.isTerminal, state == currentState, let shownStage = ScanStage(rawValue: shownStage) {
            // A job run again after its attempt was given up replays stages its subscribers already saw:
            // nothing new until it catches up, so nothing is written (their stream stays gap-free).
            if stage.progressRank < shownStage.progressRank || (stage == shownStage && clamped <= shown) { return .behind }
        }
        let event = JobEvent(
            jobId: id, seq: latest + 1, state: state, stage: stage, fraction: clamped, timestamp: now, result: result, error: error)
        let resultText = try result.map { String(decoding: try WireCoding.encode($0), as: UTF8.self) }
        let errorText = try error.map { String(decoding: try WireCoding.encode($0), as: UTF8.self) }
        let terminal = state.isTerminal
        let frame = String(decoding: try WireCoding.encode(ServerMessage.event(event)), as: UTF8.self)
        let note = "\(id.uuidString.lowercased()):\(event.seq)"
        // The event, the job moved with it and the notification in one statement (one round trip). A
        // job's end is stamped by the database's clock: its TTL runs on that clock, like leases.
        try await connection.execute(
            """
            WITH event AS (
                INSERT INTO bookscan_events (job_id, seq, payload, attempt) VALUES (\(id), \(event.seq), \(frame), \(attempt?.number)) RETURNING seq),
            job AS (
                UPDATE bookscan_jobs SET state = \(state.rawValue), stage = \(stage.rawValue), fraction = \(clamped), latest_seq = \(event.seq),
                    updated_at = \(now), finished_at = CASE WHEN \(terminal) THEN now() ELSE finished_at END,
                    result = COALESCE(\(resultText), result), error = COALESCE(\(errorText), error),
                    finished_by = CASE WHEN \(terminal) THEN COALESCE(\(attempt?.owner), lease_owner) ELSE finished_by END,
                    lease_owner = CASE WHEN \(terminal) THEN NULL ELSE lease_owner END,
                    lease_token = CASE WHEN \(terminal) THEN NULL ELSE lease_token END
                WHERE id = \(id) RETURNING id)
            SELECT pg_notify(\(eventsChannel), \(note)) FROM event, job
            """, logger: logger
        )
        if terminal { try await connection.execute("DELETE FROM bookscan_images WHERE job_id = \(id)", logger: logger) }
        return .written(event)
    }

    /// The encoded event frames of a job after `after`, in seq order (at most `limit`), and the
    /// terminal one of a finished job always (a subscriber resuming at the last seq still gets it).
    func frames(_ id: UUID, after: Int, limit: Int = 10_000) async throws -> [(seq: Int, frame: String)] {
        let logger = self.logger
        return try await client.withConnection { connection in
            var frames: [(Int, String)] = []
            let rows = try await connection.query(
                """
                SELECT seq, payload FROM bookscan_events WHERE job_id = \(id) AND (seq > \(after) OR seq = (
                    SELECT latest_seq FROM bookscan_jobs WHERE id = \(id) AND state IN ('succeeded', 'failed', 'canceled')))
                ORDER BY seq LIMIT \(limit)
                """, logger: logger)
            for try await (seq, payload) in rows.decode((Int, String).self) { frames.append((seq, payload)) }
            return frames
        }
    }

    /// The latest seq of each of `ids` (unknown ones left out), in one query.
    func latestSeqs(_ ids: [UUID]) async throws -> [UUID: Int] {
        let logger = self.logger
        return try await client.withConnection { connection in
            var seqs: [UUID: Int] = [:]
            let rows = try await connection.query("SELECT id, latest_seq FROM bookscan_jobs WHERE id = ANY(\(ids))", logger: logger)
            for try await (id, seq) in rows.decode((UUID, Int).self) { seqs[id] = seq }
            return seqs
        }
    }

    /// Jobs per state (expired ones excluded, by the database's clock), for `/healthz`.
    func countByState() async throws -> [JobState: Int] {
        let logger = self.logger, ttl = self.ttl.inSeconds
        return try await client.withConnection { connection in
            var counts: [JobState: Int] = [:]
            let rows = try await connection.query(
                "SELECT state, count(*) FROM bookscan_jobs WHERE finished_at IS NULL OR finished_at > now() - make_interval(secs => \(ttl)) GROUP BY state", logger: logger)
            for try await (state, count) in rows.decode((String, Int).self) {
                if let state = JobState(rawValue: state) { counts[state] = count }
            }
            return counts
        }
    }

    /// Deletes jobs (their events and images with them) whose TTL has passed by the database's clock,
    /// `batch` at a time, by whichever instance holds the reaper lock (the others return 0 at once);
    /// returns how many.
    func sweep(batch: Int = 500) async throws -> Int {
        let logger = self.logger, ttl = self.ttl.inSeconds
        return try await client.withTransaction(logger: logger) { connection in
            let locked = try await connection.query("SELECT pg_try_advisory_xact_lock(\(Self.reaperLock))", logger: logger)
                .decode(Bool.self).first { _ in true } ?? false
            guard locked else { return 0 }
            var removed = 0
            while true {
                let deleted = try await connection.query(
                    """
                    DELETE FROM bookscan_jobs WHERE id IN (
                        SELECT id FROM bookscan_jobs WHERE finished_at IS NOT NULL AND finished_at <= now() - make_interval(secs => \(ttl)) LIMIT \(batch))
                    RETURNING id
                    """, logger: logger
                ).decode(UUID.self).reduce(0) { count, _ in count + 1 }
                removed += deleted
                if deleted < batch { return removed }
            }
        }
    }

    /// The advisory lock key of the TTL reaper ("bookscan reaper").
    static let reaperLock: Int = 0x626F_6F6B_7265_6170

    // MARK: on one connection

    static func insert(_ event: JobEvent, on connection: PostgresConnection, logger: Logger) async throws {
        let frame = String(decoding: try WireCoding.encode(ServerMessage.event(event)), as: UTF8.self)
        try await connection.execute(
            "INSERT INTO bookscan_events (job_id, seq, payload) VALUES (\(event.jobId), \(event.seq), \(frame))", logger: logger
        )
        // Only admission inserts through here: the job is new, and claimable.
        let note = "\(event.jobId.uuidString.lowercased()):\(event.seq)\(newJobMark)"
        try await connection.execute("SELECT pg_notify(\(eventsChannel), \(note))", logger: logger)
    }

    static func admission(_ id: UUID, digest: [UInt8], on connection: PostgresConnection, ttl: Duration, now: Date, logger: Logger) async throws
        -> Admission?
    {
        guard let snapshot = try await snapshot(id, on: connection, ttl: ttl, now: now, logger: logger) else { return nil }
        let stored = try await connection.query("SELECT digest FROM bookscan_jobs WHERE id = \(id)", logger: logger)
            .decode(ByteBuffer.self).first { _ in true }
        return stored.map { Array($0.readableBytesView) } == digest ? .existing(snapshot) : .conflict
    }

    static func snapshot(_ id: UUID, on connection: PostgresConnection, ttl: Duration, now: Date, logger: Logger) async throws -> JobSnapshot? {
        let rows = try await connection.query(
            """
            SELECT state, stage, fraction, latest_seq, created_at, updated_at, started_at, finished_at, image_bytes, result, error
            FROM bookscan_jobs WHERE id = \(id) AND (finished_at IS NULL OR finished_at > now() - make_interval(secs => \(ttl.inSeconds)))
            """, logger: logger
        ).decode((String, String, Double, Int, Date, Date, Date?, Date?, Int, String?, String?).self)
        guard let row = try await rows.first(where: { _ in true }) else { return nil }
        let (state, stage, fraction, seq, created, updated, started, finished, bytes, result, error) = row
        return JobSnapshot(
            jobId: id, state: JobState(rawValue: state) ?? .failed, stage: ScanStage(rawValue: stage) ?? .done, fraction: fraction, seq: seq,
            createdAt: created, updatedAt: updated, startedAt: started, finishedAt: finished,
            expiresAt: (finished ?? now).addingTimeInterval(ttl.inSeconds), imageBytes: bytes,
            result: result.flatMap { try? WireCoding.decode(ScanResult.self, from: Data($0.utf8)) },
            error: error.flatMap { try? WireCoding.decode(ErrorBody.self, from: Data($0.utf8)) }, links: JobLinks(jobId: id))
    }

    static func fallback(_ event: JobEvent, bytes: Int, ttl: Duration) -> JobSnapshot {
        JobSnapshot(
            jobId: event.jobId, state: event.state, stage: event.stage, fraction: event.fraction, seq: event.seq, createdAt: event.timestamp,
            updatedAt: event.timestamp, startedAt: nil, finishedAt: nil, expiresAt: event.timestamp.addingTimeInterval(ttl.inSeconds),
            imageBytes: bytes, result: nil, error: nil, links: JobLinks(jobId: event.jobId))
    }
}
