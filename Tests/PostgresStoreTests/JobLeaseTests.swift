import BookscanTestSupport
import Foundation
import ScanProtocol
import Testing

@testable import ScanService

/// Claims and leases on a real throw-away PostgreSQL: concurrent claimers never share a job, a job
/// whose lease expired (its instance died) is claimed again as its next attempt, a writer that lost
/// its lease writes nothing, attempts are bounded, cancel works held and unheld.
@Suite("PostgreSQL claims and leases", .serialized, .enabled(if: PostgresCluster.runnable, "PostgreSQL is not installed (scripts/bootstrap installs it)"))
struct JobLeaseTests {
    let rows = JobTableTests()

    func admit(_ table: JobTable, _ id: UUID = UUID()) async throws -> UUID {
        _ = try await table.admit(id: id, image: JobTableTests.image, digest: [1], seqAfter: 0, now: Date(), queueCapacity: 100)
        return id
    }

    /// Claims for `owner` until one comes back (a lease is expiring), bounded so a bug cannot hang the suite.
    func claimEventually(_ table: JobTable, owner: String, lease: Duration, maxAttempts: Int = 3) async throws -> JobTable.Claim? {
        for _ in 0..<200 {
            if let claim = try await table.claim(owner: owner, lease: lease, maxAttempts: maxAttempts, now: Date()) { return claim }
            try await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }

    @Test("two instances claiming at once get different jobs, with the image; nothing is left for a third; a lease is renewed only by its holder")
    func concurrentClaims() async throws {
        try await rows.withTable { table, _ in
            let first = try await admit(table), second = try await admit(table)
            async let a = table.claim(owner: "A", lease: .seconds(30), maxAttempts: 3, now: Date())
            async let b = table.claim(owner: "B", lease: .seconds(30), maxAttempts: 3, now: Date())
            let claims = try await [a, b].compactMap { $0 }
            #expect(Set(claims.map(\.id)) == [first, second])
            #expect(claims.allSatisfy { $0.attempt.number == 1 && $0.image == JobTableTests.image })
            #expect(try await table.claim(owner: "C", lease: .seconds(30), maxAttempts: 3, now: Date()) == nil)
            let held = try #require(claims.first)
            #expect(try await table.renew([UUID()], lease: .seconds(30)).isEmpty)
            #expect(try await table.renew([held.attempt.token], lease: .seconds(30))[held.attempt.token] == false)
        }
    }

    @Test("an expired lease (its instance died) is claimed again as attempt 2; the old holder can neither renew nor write; the new one goes on with the next seq once past what was shown")
    func expiredLease() async throws {
        try await rows.withTable { table, _ in
            let id = try await admit(table)
            let first = try #require(try await table.claim(owner: "A", lease: .milliseconds(200), maxAttempts: 3, now: Date()))
            #expect(first.id == id)
            #expect(try await table.append(id, state: .running, stage: .decoding, fraction: 0.3, now: Date(), attempt: first.attempt) != nil)
            let second = try #require(try await claimEventually(table, owner: "B", lease: .seconds(30)))
            #expect(second.id == id && second.attempt.number == 2)
            #expect(try await table.renew([first.attempt.token], lease: .seconds(30))[first.attempt.token] == nil)
            #expect(try await table.append(id, state: .running, stage: .findingRows, fraction: 0.9, now: Date(), attempt: first.attempt) == nil)
            // The rerun replays a stage its subscribers saw: nothing is written until it catches up.
            #expect(try await table.append(id, state: .running, stage: .decoding, fraction: 0.1, now: Date(), attempt: second.attempt) == nil)
            let next = try #require(try await table.append(id, state: .running, stage: .findingRows, fraction: 0.1, now: Date(), attempt: second.attempt))
            #expect(next.seq == 3 && next.fraction == 0.3, "the rerun goes on with the next seq and never shows less")
            #expect(try await table.renew([second.attempt.token], lease: .seconds(30))[second.attempt.token] == false)
        }
    }

    @Test("a job whose instances keep dying is failed after --max-attempts, with one terminal event")
    func attemptsBounded() async throws {
        try await rows.withTable { table, cluster in
            let id = try await admit(table)
            _ = try #require(try await table.claim(owner: "A", lease: .milliseconds(100), maxAttempts: 2, now: Date()))
            _ = try #require(try await claimEventually(table, owner: "B", lease: .milliseconds(100), maxAttempts: 2))
            // The third claim finds the job out of attempts: it fails it and finds nothing else.
            var failed = false
            for _ in 0..<200 where !failed {
                #expect(try await table.claim(owner: "C", lease: .seconds(30), maxAttempts: 2, now: Date()) == nil)
                failed = try await table.snapshot(id, now: Date())?.state == .failed
                if !failed { try await Task.sleep(for: .milliseconds(50)) }
            }
            let snapshot = try #require(try await table.snapshot(id, now: Date()))
            #expect(snapshot.state == .failed && snapshot.error?.message.contains("2 attempts") == true)
            let terminal = try cluster.psql("SELECT count(*) FROM bookscan_events WHERE job_id = '\(id.uuidString.lowercased())' AND payload LIKE '%\"failed\"%'")
            #expect(terminal.hasPrefix("1"))
        }
    }

    @Test("cancel: a job no worker holds ends at once; a held one is flagged for its worker (renew says so)")
    func cancel() async throws {
        try await rows.withTable { table, _ in
            let waiting = try await admit(table)
            let canceled = try #require(try await table.requestCancel(waiting, now: Date()))
            #expect(canceled.state == .canceled && canceled.seq == 2)
            let running = try await admit(table)
            let claim = try #require(try await table.claim(owner: "A", lease: .seconds(30), maxAttempts: 3, now: Date()))
            #expect(claim.id == running)
            #expect(try await table.requestCancel(running, now: Date())?.state == .queued)
            #expect(try await table.renew([claim.attempt.token], lease: .seconds(30))[claim.attempt.token] == true)
            #expect(try await table.requestCancel(UUID(), now: Date()) == nil)
        }
    }
}
