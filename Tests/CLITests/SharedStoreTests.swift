import BookscanTestSupport
import Foundation
import ScanClient
import ScanProtocol
import Testing

/// Several real `bookscan serve --database` processes on one throw-away PostgreSQL database: a job
/// uploaded to one instance is followed on another, survives the death of the instance running it,
/// is made once whichever instances get its PUT, and outlives every instance.
@Suite("Instances sharing one PostgreSQL", .serialized, .enabled(if: PostgresCluster.runnable, "PostgreSQL is not installed (scripts/bootstrap installs it)"))
struct SharedStoreTests {
    let cli = CLITests()
    let http = CurlHTTPClient(configuration: .init(connectTimeout: .seconds(5), totalTimeout: .seconds(30)))

    /// The `serve` children a test started; all of them are stopped when it ends, however it ends.
    final class Started: @unchecked Sendable {
        var servers: [ServeProcess] = []
    }

    /// Runs a test body under the heavy-test gate and stops every instance it started afterwards.
    func running(_ body: @escaping @Sendable (Started) async throws -> Void) async throws {
        try await HeavyTests.gate.run {
            let started = Started()
            do {
                try await body(started)
            } catch {
                for server in started.servers { _ = await server.stop() }
                throw error
            }
            for server in started.servers { _ = await server.stop() }
        }
    }

    func instance(_ database: TestDatabase, _ name: String, extra: [String] = [], in started: Started) async throws -> ServeProcess {
        let server = try await ServeProcess.start(["--database", database.url, "--instance", name, "--scan-step-delay", "40ms"] + extra)
        started.servers.append(server)
        return server
    }

    func put(_ port: Int, _ id: UUID, _ jpeg: [UInt8]) async throws -> Int {
        try await http.send(
            HTTPRequestData(
                method: "PUT", url: "http://127.0.0.1:\(port)" + Routes.scan(id), headers: [("Content-Type", ProtocolNames.jpegMediaType)],
                body: jpeg)
        ).status
    }

    func snapshot(_ port: Int, _ id: UUID) async throws -> JobSnapshot? {
        let response = try await http.send(HTTPRequestData(method: "GET", url: "http://127.0.0.1:\(port)" + Routes.scan(id)))
        return response.status == 200 ? try? WireCoding.decode(JobSnapshot.self, from: Data(response.body)) : nil
    }

    /// The events `bookscan watch --events` printed, in order.
    static func events(_ stdout: String) -> [JobEvent] {
        stdout.split(separator: "\n").compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], let event = object["event"],
                let data = try? JSONSerialization.data(withJSONObject: event)
            else { return nil }
            return try? WireCoding.decode(JobEvent.self, from: data)
        }
    }

    /// Seqs gap-free from the first shown, fraction never back, one terminal, the last succeeded.
    func expectSound(_ events: [JobEvent]) {
        let seqs = events.map(\.seq)
        #expect(!seqs.isEmpty && seqs == Array((seqs.first ?? 0)...(seqs.last ?? 0)), "\(seqs)")
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.fraction <= $1.fraction && $0.stage.progressRank <= $1.stage.progressRank })
        #expect(events.filter(\.state.isTerminal).count == 1 && events.last?.state == .succeeded)
    }

    @Test("three instances: upload to A, follow on B's WebSocket, poll C: B shows every event in order to the end; C agrees; /healthz names each instance and the store")
    func acrossInstances() async throws { try await running { try await self.acrossInstancesBody($0) } }

    func acrossInstancesBody(_ started: Started) async throws {
        guard let database = try PostgresCluster.testDatabase() else { return }
        let a = try await instance(database, "A", in: started)
        let b = try await instance(database, "B", in: started)
        let c = try await instance(database, "C", in: started)
        let id = UUID()
        #expect(try await put(a.port, id, try SyntheticShelf.jpeg(seed: 81)) == 202)
        let watch = try await cli.bookscan(["watch", id.uuidString, "--server", "http://127.0.0.1:\(b.port)", "--events", "--strategy", "websocket"])
        #expect(watch.status == 0, "\(watch.stderr)")
        let events = Self.events(watch.stdout)
        expectSound(events)
        let polled = try #require(try await snapshot(c.port, id))
        #expect(polled.state == .succeeded && polled.seq == events.last?.seq)
        let health = try WireCoding.decode(
            HealthStatus.self, from: Data(try await http.send(HTTPRequestData(method: "GET", url: "http://127.0.0.1:\(c.port)/healthz")).body))
        #expect(health.store == "postgres" && health.instance == "C")
    }

    @Test("SIGKILL the instance running a job mid-scan: another one runs it again; the subscriber on the survivor sees no gap, nothing back, one terminal; attempt 2")
    func instanceDies() async throws { try await running { try await self.instanceDiesBody($0) } }

    func instanceDiesBody(_ started: Started) async throws {
        guard let database = try PostgresCluster.testDatabase() else { return }
        let a = try await instance(database, "A", extra: ["--lease", "2s", "--scan-step-delay", "60ms"], in: started)
        let b = try await instance(database, "B", extra: ["--lease", "2s", "--scan-step-delay", "60ms"], in: started)
        let id = UUID()
        #expect(try await put(a.port, id, try SyntheticShelf.jpeg(width: 900, height: 600, books: 14, seed: 82)) == 202)
        var owner = ""
        _ = await ChildProcess.until(.seconds(30)) {
            owner = (try? database.psql("SELECT lease_owner FROM bookscan_jobs WHERE id = '\(id.uuidString.lowercased())'"))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            return !owner.isEmpty
        }
        let (doomed, survivor) = owner == "A" ? (a, b) : (b, a)
        let watch = try ChildProcess.bookscan(["watch", id.uuidString, "--server", "http://127.0.0.1:\(survivor.port)", "--events"])
        // Once the survivor's subscriber has shown something, the running instance dies.
        _ = await ChildProcess.until(.seconds(30)) { !Self.events(watch.stdout).isEmpty }
        kill(doomed.child.pid, SIGKILL)
        let status = await watch.exit()
        #expect(status == 0, "\(watch.stderr)")
        expectSound(Self.events(watch.stdout))
        let attempts = try database.psql("SELECT attempts FROM bookscan_jobs WHERE id = '\(id.uuidString.lowercased())'")
        #expect(attempts.trimmingCharacters(in: .whitespacesAndNewlines) == "2")
    }

    @Test("the same PUT to two instances at once makes one job; other bytes under that id are 409 whichever instance answers; every instance gone and a new one started: the finished job is still served")
    func oneJobAndDurability() async throws { try await running { try await self.oneJobAndDurabilityBody($0) } }

    func oneJobAndDurabilityBody(_ started: Started) async throws {
        guard let database = try PostgresCluster.testDatabase() else { return }
        let a = try await instance(database, "A", in: started), b = try await instance(database, "B", in: started)
        let id = UUID(), jpeg = try SyntheticShelf.jpeg(seed: 83)
        async let first = put(a.port, id, jpeg)
        async let second = put(b.port, id, jpeg)
        #expect(try await [first, second] == [202, 202])
        #expect(try database.psql("SELECT count(*) FROM bookscan_jobs").hasPrefix("1"))
        #expect(try await put(b.port, id, try SyntheticShelf.jpeg(seed: 84)) == 409)
        #expect(try await put(a.port, id, try SyntheticShelf.jpeg(seed: 84)) == 409)
        _ = await ChildProcess.until(.seconds(60)) { (try? await snapshot(a.port, id))?.state == .succeeded }
        _ = await a.stop()
        _ = await b.stop()
        let fresh = try await instance(database, "D", in: started)
        let after = try #require(try await snapshot(fresh.port, id))
        #expect(after.state == .succeeded && after.result != nil)
        let watch = try await cli.bookscan(["watch", id.uuidString, "--server", "http://127.0.0.1:\(fresh.port)", "--json"])
        #expect(watch.status == 0, "\(watch.stderr)")
    }

    @Test("PostgreSQL stopped for 10 s in the middle of a batch of 20: /healthz 503 degraded, database unavailable; requests 503 + Retry-After; once it is back every job succeeds, no restart, every job's stored events are gap-free with one terminal, and a subscriber followed one job through it whole")
    func databaseAway() async throws { try await running { try await self.databaseAwayBody($0) } }

    func databaseAwayBody(_ started: Started) async throws {
        // A cluster of its own: the shared one serves the other tests meanwhile.
        let cluster = try PostgresCluster()
        defer { cluster.stop() }
        let database = try cluster.freshDatabase()
        let a = try await instance(database, "A", extra: ["--scan-step-delay", "30ms"], in: started)
        let b = try await instance(database, "B", extra: ["--scan-step-delay", "30ms"], in: started)
        var files: [String: [UInt8]] = [:]
        for i in 0..<20 { files["p\(i).jpg"] = try BatchTests.photo(seed: 90 + i) }
        let root = try BatchTests.folder(files)
        let batch = try ChildProcess.bookscan(["batch", root, "--server", "http://127.0.0.1:\(a.port)", "--json", "--quiet", "--jobs", "4"])
        // One more job, uploaded to B and followed on A's WebSocket through the outage: what A's event
        // feed sends its subscriber must be the whole stream (a time limit, so a stalled feed fails the
        // test instead of hanging it).
        let followed = UUID()
        #expect(try await put(b.port, followed, try SyntheticShelf.jpeg(seed: 89)) == 202)
        let watch = try ChildProcess.bookscan([
            "watch", followed.uuidString, "--server", "http://127.0.0.1:\(a.port)", "--events", "--strategy", "websocket", "--timeout", "120",
        ])
        // Once jobs are running, the database goes away for 10 s.
        _ = await ChildProcess.until(.seconds(60)) {
            Int(((try? database.psql("SELECT count(*) FROM bookscan_events")) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 >= 30
        }
        try cluster.pause()
        let away = ContinuousClock.now
        let health = try await http.send(HTTPRequestData(method: "GET", url: "http://127.0.0.1:\(b.port)/healthz"))
        let status = try WireCoding.decode(HealthStatus.self, from: Data(health.body))
        #expect(health.status == 503 && status.status == "degraded" && status.database == "unavailable")
        let refused = try await http.send(HTTPRequestData(method: "GET", url: "http://127.0.0.1:\(b.port)" + Routes.scan(UUID())))
        #expect(refused.status == 503 && refused.header("Retry-After") != nil)
        #expect((try? WireCoding.decode(ErrorResponse.self, from: Data(refused.body)))?.error.code == .databaseUnavailable)
        try await Task.sleep(until: away + .seconds(10))
        try cluster.resume()
        #expect(await batch.exit() == 0, "\(batch.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data((batch.stdout.split(separator: "\n").last ?? "").utf8)) as? [String: Any])
        #expect(summary["succeeded"] as? Int == 20 && summary["failed"] as? Int == 0)
        #expect(await watch.exit() == 0, "\(watch.stderr)")
        let watched = Self.events(watch.stdout)
        expectSound(watched)
        #expect(watched.last?.seq == (try await snapshot(b.port, followed))?.seq)
        // What any subscriber replays: per job seq 1...N with no gap, nothing back, one terminal, succeeded.
        let payloads = try database.psql("SELECT payload FROM bookscan_events ORDER BY job_id, seq").split(separator: "\n")
        var byJob: [UUID: [JobEvent]] = [:]
        for payload in payloads {
            if case .event(let event) = try WireCoding.decode(ServerMessage.self, from: Data(payload.utf8)) { byJob[event.jobId, default: []].append(event) }
        }
        #expect(byJob.count == 21)
        for events in byJob.values {
            expectSound(events)
            #expect(events.first?.seq == 1)
        }
        let healthy = try await http.send(HTTPRequestData(method: "GET", url: "http://127.0.0.1:\(b.port)/healthz"))
        #expect(healthy.status == 200)
    }
}
