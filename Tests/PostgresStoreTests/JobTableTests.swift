import BookscanTestSupport
import Foundation
import Logging
import PostgresNIO
import ScanProtocol
import Testing

@testable import ScanService

/// The job rows on a real throw-away PostgreSQL: idempotent admission (also when two instances
/// admit the same id at once), events appended with their state in one transaction, the fraction
/// never backwards, nothing after the terminal event, replay by seq, the TTL reaper.
@Suite("PostgreSQL job rows", .serialized, .enabled(if: PostgresCluster.runnable, "PostgreSQL is not installed (scripts/bootstrap installs it)"))
struct JobTableTests {
    /// Runs `body` with a migrated cluster's job table (a pool of its own); nil cluster: skipped.
    func withTable(ttl: Duration = .seconds(3600), _ body: (JobTable, TestDatabase) async throws -> Void) async throws {
        guard let cluster = try SchemaMigrationTests.database() else { return }
        let url = try DatabaseURL(cluster.url)
        _ = try await DatabaseSchema.migrate(url)
        var logger = Logger(label: "test.postgres")
        logger.logLevel = .critical
        let client = PostgresClient(configuration: DatabaseConnector(url: url).clientConfiguration, backgroundLogger: logger)
        let running = Task { await client.run() }
        defer { running.cancel() }
        try await body(JobTable(client: client, ttl: ttl, logger: logger), cluster)
    }

    static let image: [UInt8] = Array("not really a jpeg, the table does not look".utf8)

    @Test("same id + same bytes is the existing job, different bytes a conflict; ten admissions of one id at once make one job")
    func idempotentAdmission() async throws {
        try await withTable { table, cluster in
            let id = UUID(), now = Date()
            guard case .created(let created) = try await table.admit(id: id, image: Self.image, digest: [1, 2], seqAfter: 0, now: now, queueCapacity: 10)
            else { Issue.record("not created"); return }
            #expect(created.seq == 1 && created.state == .queued && created.imageBytes == Self.image.count)
            guard case .existing(let again) = try await table.admit(id: id, image: Self.image, digest: [1, 2], seqAfter: 0, now: now, queueCapacity: 10)
            else { Issue.record("not existing"); return }
            #expect(again.seq == 1)
            guard case .conflict = try await table.admit(id: id, image: [9], digest: [9, 9], seqAfter: 0, now: now, queueCapacity: 10) else {
                Issue.record("not a conflict")
                return
            }
            let raced = UUID()
            let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<10 {
                    group.addTask {
                        switch try await table.admit(id: raced, image: Self.image, digest: [7], seqAfter: 0, now: now, queueCapacity: 100) {
                        case .created: "created"
                        case .existing: "existing"
                        case .conflict: "conflict"
                        case .queueFull: "full"
                        }
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(outcomes.sorted() == ["created"] + Array(repeating: "existing", count: 9), "\(outcomes)")
            #expect(try cluster.psql("SELECT count(*) FROM bookscan_events WHERE job_id = '\(raced.uuidString.lowercased())'").hasPrefix("1"))
        }
    }

    @Test("events: seq 2, 3… with the job moved in the same transaction; a lower fraction is clamped; nothing after the terminal event; the image goes with it")
    func appendAndReplay() async throws {
        try await withTable { table, cluster in
            let id = UUID(), now = Date()
            _ = try await table.admit(id: id, image: Self.image, digest: [3], seqAfter: 4, now: now, queueCapacity: 10)
            let running = try #require(try await table.append(id, state: .running, stage: .decoding, fraction: 0.5, now: now))
            let lower = try #require(try await table.append(id, state: .running, stage: .findingRows, fraction: 0.25, now: now))
            #expect(running.seq == 6 && lower.seq == 7 && lower.fraction == 0.5)
            let result = ScanResult(imageWidth: 10, imageHeight: 10, workingWidth: 10, workingHeight: 10, rows: [], spines: [], timings: [])
            let done = try #require(try await table.append(id, state: .succeeded, stage: .done, fraction: 1, now: now, result: result))
            #expect(done.seq == 8)
            #expect(try await table.append(id, state: .running, stage: .decoding, fraction: 1, now: now) == nil)
            let snapshot = try #require(try await table.snapshot(id, now: now))
            #expect(snapshot.seq == 8 && snapshot.state == .succeeded && snapshot.result == result && snapshot.finishedAt != nil)
            let frames = try await table.frames(id, after: 5)
            #expect(frames.map(\.seq) == [6, 7, 8])
            let events = frames.compactMap { frame -> JobEvent? in
                if case .event(let e) = try? WireCoding.decode(ServerMessage.self, from: Data(frame.frame.utf8)) { e } else { nil }
            }
            #expect(events.map(\.seq) == [6, 7, 8] && events.last?.result == result)
            #expect(try cluster.psql("SELECT count(*) FROM bookscan_images WHERE job_id = '\(id.uuidString.lowercased())'").hasPrefix("0"))
        }
    }

    @Test("the queue bound refuses one job more; the reaper deletes finished jobs past their TTL with their events, and only those")
    func queueAndReaper() async throws {
        try await withTable(ttl: .zero) { table, cluster in
            let now = Date()
            let first = UUID(), second = UUID()
            guard case .created = try await table.admit(id: first, image: Self.image, digest: [1], seqAfter: 0, now: now, queueCapacity: 1) else {
                Issue.record("not created")
                return
            }
            guard case .queueFull = try await table.admit(id: second, image: Self.image, digest: [2], seqAfter: 0, now: now, queueCapacity: 1) else {
                Issue.record("not refused")
                return
            }
            guard case .created = try await table.admit(id: second, image: Self.image, digest: [2], seqAfter: 0, now: now, queueCapacity: 2) else {
                Issue.record("not created")
                return
            }
            _ = try await table.append(first, state: .canceled, stage: .done, fraction: 0, now: now)
            #expect(try await table.sweep() == 1)
            #expect(try cluster.psql("SELECT count(*) FROM bookscan_events").hasPrefix("1"), "the queued job's event stays")
            #expect(try await table.snapshot(second, now: now) != nil)
            #expect(try await table.countByState() == [.queued: 1])
        }
    }
}
