import BookscanTestSupport
import Foundation
import Logging
import PostgresNIO
import ScanEngine
import ScanProtocol
import Testing

@testable import ScanService

/// PostgreSQL away for longer than three leases while jobs are mid-scan, with real services
/// (in-process, each its own pool, listener and workers; jobs admitted straight into the table) on a throw-away cluster of the test's own:
/// a stalled writer gives its attempt up without publishing `canceled`, another attempt (another
/// instance's, or the same one's after recovery) finishes every job, and the stored events stay
/// what a subscriber may see: seq gap-free, nothing back, one terminal, one attempt writing at a time.
@Suite("PostgreSQL outage longer than the lease", .serialized, .enabled(if: PostgresCluster.runnable, "PostgreSQL is not installed (scripts/bootstrap installs it)"))
struct StoreOutageTests {
    @Test("--lease 1s, PostgreSQL stopped for 30 s mid-scan: every job succeeded, its stored events gap-free, never back, one terminal, no two attempts interleaved", arguments: [1, 2])
    func outageMidScan(instances: Int) async throws {
        try await HeavyTests.gate.run {
            try await self.outage(instances: instances)
        }
    }

    func outage(instances: Int) async throws {
        let cluster = try PostgresCluster()
        defer { cluster.stop() }
        let database = try cluster.freshDatabase()
        var services: [EmbeddedScanService] = []
        defer { for service in services { Task { await service.stop() } } }
        for name in ["A", "B"].prefix(instances) {
            var configuration = ServiceConfiguration(workers: 2).injecting(FaultSeams(scanStepDelay: .milliseconds(800), instantScan: true))
            configuration.database = DatabaseSettings(url: try DatabaseURL(database.url), instance: name, lease: .seconds(1))
            configuration.engine.titles = .off
            services.append(try await EmbeddedScanService.start(configuration: configuration, logger: .quiet("test.outage")))
        }
        // As many jobs as workers: every one is running when the database goes.
        let jobs = (0..<(2 * instances)).map { _ in UUID() }
        // Uploads as an instance admits them (the table's admission; the services' workers claim them).
        let url = try DatabaseURL(database.url)
        let client = PostgresClient(configuration: DatabaseConnector(url: url).clientConfiguration, backgroundLogger: .quiet("test.uploads"))
        let pool = Task { await client.run() }
        let uploads = JobTable(client: client, ttl: .seconds(3600), logger: .quiet("test.uploads"))
        for id in jobs {
            guard case .created = try await uploads.admit(id: id, image: try SyntheticShelf.jpeg(seed: 5), digest: [5], seqAfter: 0, now: Date(), queueCapacity: 16)
            else {
                Issue.record("not admitted")
                return
            }
        }
        pool.cancel()
        // Mid-scan: every job has shown progress (queued + running + a step), none has ended.
        let midScan = await Self.eventually(.seconds(60)) {
            let counts = (try? database.psql("SELECT count(*) FROM bookscan_events GROUP BY job_id"))?.split(separator: "\n").compactMap { Int($0) } ?? []
            return counts.count == jobs.count && counts.allSatisfy { $0 >= 3 }
        }
        #expect(midScan)
        #expect(try database.psql("SELECT count(*) FROM bookscan_jobs WHERE finished_at IS NOT NULL") == "0\n")
        try cluster.pause()
        try await Task.sleep(for: .seconds(30))
        try cluster.resume()

        let finished = await Self.eventually(.seconds(120)) {
            (try? database.psql("SELECT count(*) FROM bookscan_jobs WHERE finished_at IS NOT NULL")) == "\(jobs.count)\n"
        }
        #expect(finished)
        let states = try database.psql("SELECT state FROM bookscan_jobs").split(separator: "\n")
        #expect(states.count == jobs.count && states.allSatisfy { $0 == "succeeded" }, "\(states)")
        #expect(try database.psql("SELECT count(*) FROM bookscan_jobs WHERE attempts >= 2") != "0\n", "the outage made some attempt give up")

        let rows = try database.psql("SELECT job_id, attempt, payload FROM bookscan_events ORDER BY job_id, seq").split(separator: "\n")
        var byJob: [UUID: [(attempt: Int?, event: JobEvent)]] = [:]
        for row in rows {
            let fields = row.split(separator: "|", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, let id = UUID(uuidString: String(fields[0])),
                case .event(let event) = try WireCoding.decode(ServerMessage.self, from: Data(fields[2].utf8))
            else {
                Issue.record("unreadable row \(row)")
                continue
            }
            byJob[id, default: []].append((Int(fields[1]), event))
        }
        #expect(Set(byJob.keys) == Set(jobs))
        for (id, stored) in byJob {
            let events = stored.map(\.event)
            #expect(events.map(\.seq) == Array(1...events.count), "\(id): \(events.map(\.seq))")
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.fraction <= $1.fraction && $0.stage.progressRank <= $1.stage.progressRank })
            #expect(events.filter(\.state.isTerminal).count == 1 && events.last?.state == .succeeded)
            #expect(!events.contains { $0.state == .canceled })
            // Once a later attempt has written, an earlier one never writes again.
            let attempts = stored.compactMap(\.attempt)
            #expect(attempts == attempts.sorted(), "\(id): attempts by seq \(attempts)")
        }
    }

    /// Waits (bounded: a hang guard, not a timing assertion) until `condition` holds; whether it did.
    static func eventually(_ bound: Duration, _ condition: () async -> Bool) async -> Bool {
        let end = ContinuousClock.now + bound
        while ContinuousClock.now < end {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return await condition()
    }
}
