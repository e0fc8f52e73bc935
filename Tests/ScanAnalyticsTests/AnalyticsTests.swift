import Foundation
import RunModel
import ScanAnalytics
import ScanProtocol
import Testing

/// The analytics log, the stats formulas, the strategy memory and the network fingerprint.
@Suite("Analytics")
struct AnalyticsTests {
    static let analytics = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Analytics").standardized

    func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bookscan-analytics-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    func record(
        network: String = "1111111111111111", strategy: StrategyName?, outcome: RunOutcome = .succeeded, reason: SocketFailureReason? = nil,
        status: Int? = nil, from: StreamTransport? = nil
    ) throws -> AnalyticsRecord {
        var run = RunSummary(outcome: outcome, totalSeconds: 1)
        run.strategy = strategy
        run.fallbackFrom = from
        run.fallbackReason = reason
        run.fallbackStatus = status
        run.fallbackPhase = reason == nil ? nil : .beforeFirstEvent
        return AnalyticsRecord(
            run: run, jobId: UUID(), streamFailures: 0, uploadAttempts: 0, resubmissions: 0, spinesFound: nil, command: "scan", network: network,
            server: "embedded", version: "test")
    }

    @Test("the sample log gives the hand-computed numbers in Analytics/README.md")
    func sampleFormulas() throws {
        let (records, skipped) = AnalyticsLog(path: Self.analytics.appendingPathComponent("sample-log.jsonl").path).read()
        #expect(records.count == 9)
        #expect(skipped == 2)
        let summary = StatsSummary(records: records, skippedLines: skipped, groupedBy: .network)
        // The timed-out run is in no denominator (issue 12 §2): it is counted on its own.
        #expect(summary.completion.numerator == 6 && summary.completion.denominator == 7)
        #expect(summary.completion.met == false)
        #expect(summary.webSocketSuccess.numerator == 3 && summary.webSocketSuccess.denominator == 6)
        #expect(summary.pollingFallback.numerator == 3 && summary.pollingFallback.denominator == 6)
        #expect(summary.timedOut == 1 && summary.interrupted == 0)
        #expect(summary.pollingFallback.met == false)
        #expect(summary.firstEvent["websocket"]?.p50 == 0.2)
        #expect(summary.firstEvent["websocket"]?.p95 == 0.4)
        #expect(summary.firstEvent["polling_fallback"]?.p50 == 1.0)
        #expect(summary.firstEvent["polling_fallback"]?.p95 == 2.6)
        #expect(summary.total["websocket"]?.p50 == 1.0)
        #expect(summary.total["polling_fallback"]?.p95 == 5.0)
        #expect(summary.fallbackReasons == ["refused 503 (before first event)": 1, "silent (before first event)": 1, "dropped (mid scan)": 1])
        let byNetwork = Dictionary(uniqueKeysWithValues: summary.groups.map { ($0.key, $0) })
        #expect(byNetwork["1111111111111111"]?.webSocketSuccess.numerator == 3)
        #expect(byNetwork["1111111111111111"]?.webSocketSuccess.denominator == 3)
        #expect(byNetwork["2222222222222222"]?.webSocketSuccess.value == 0)
        let byDay = StatsSummary(records: records, skippedLines: 0, groupedBy: .day).groups.map(\.key)
        #expect(byDay == ["2026-11-18", "2026-11-19", "2026-11-20"])
    }

    @Test("interrupted and timed-out runs stay out of the completion and WebSocket-success rates, counted on their own")
    func stoppedRunsOutOfRates() throws {
        var records = [try record(strategy: .websocket), try record(strategy: .pollingFallback, reason: .silent)]
        records.append(try record(strategy: .websocket, outcome: .timedOut))
        records.append(try record(strategy: .pollingFallback, outcome: .stopped, reason: .connectTimeout))
        var untracked = try record(strategy: nil, outcome: .stopped)
        untracked.uploadSeconds = 0.1  // a run nothing carried, stopped early: tracked, yet in no rate
        records.append(untracked)
        let summary = StatsSummary(records: records, skippedLines: 0, groupedBy: .strategy)
        #expect(summary.completion.numerator == 2 && summary.completion.denominator == 2)
        #expect(summary.webSocketSuccess.numerator == 1 && summary.webSocketSuccess.denominator == 2)
        #expect(summary.timedOut == 1)
        #expect(summary.interrupted == 2)
    }

    @Test("--strategy websocket that could not carry the job counts as a WebSocket try that failed")
    func socketUnavailableIsATry() throws {
        let summary = StatsSummary(records: [try record(strategy: nil, outcome: .socketUnavailable)], skippedLines: 0, groupedBy: .strategy)
        #expect(summary.webSocketSuccess.numerator == 0 && summary.webSocketSuccess.denominator == 1)
    }

    @Test("--by network shows every server's verdict on a network; none overwrites another")
    func verdictsPerServer() {
        let now = Date()
        let blocked = StrategyMemory.Entry(
            network: "n1", server: "s-a",
            webSocket: .init(consecutiveFailures: 2, avoidUntil: now.addingTimeInterval(3600), lastReason: "silent"), updatedAt: now)
        let fine = StrategyMemory.Entry(network: "n1", server: "s-b", updatedAt: now)
        let alone = StrategyMemory.Entry(network: "n2", server: "s-a", updatedAt: now)
        for order in [[blocked, fine, alone], [alone, fine, blocked]] {
            let verdicts = StatsSummary.networkVerdicts(order, now: now)
            #expect(verdicts["n1"]?.contains("server s-a: WebSocket skipped until") == true)
            #expect(verdicts["n1"]?.contains("→ sse first") == true)
            #expect(verdicts["n1"]?.contains("server s-b: WebSocket ok, SSE ok → websocket first") == true)
            #expect(verdicts["n2"] == "WebSocket ok, SSE ok → websocket first")
        }
    }

    @Test("an empty or missing log reads as nothing, without failing")
    func missingLog() throws {
        let (records, skipped) = AnalyticsLog(path: try temporaryDirectory() + "/none.jsonl").read()
        #expect(records.isEmpty && skipped == 0)
        let summary = StatsSummary(records: [], skippedLines: 0, groupedBy: .strategy)
        #expect(summary.completion.value == nil && summary.completion.met == nil)
    }

    @Test("16 concurrent writers in one process: every line whole and parseable")
    func concurrentWriters() async throws {
        let log = AnalyticsLog(path: try temporaryDirectory() + "/a.jsonl")
        let template = try record(strategy: .websocket)
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<16 {
                group.addTask {
                    for i in 0..<50 {
                        var r = template
                        r.jobId = "\(writer)-\(i)"
                        try? log.append(r)
                    }
                }
            }
        }
        let (records, skipped) = log.read()
        #expect(skipped == 0)
        #expect(records.count == 800)
        #expect(Set(records.compactMap(\.jobId)).count == 800)
    }

    @Test("corrupt and partial lines are skipped and counted; good lines around them survive")
    func corruptLines() throws {
        let path = try temporaryDirectory() + "/c.jsonl"
        let log = AnalyticsLog(path: path)
        try log.append(try record(strategy: .websocket))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data("{\"schemaVersion\":1,\"time".utf8))  // a crash mid-line
        try handle.close()
        try log.append(try record(strategy: .polling))
        let (records, skipped) = log.read()
        #expect(skipped == 1)
        #expect(records.count == 1)  // the partial line swallowed the next record's start: that line is lost as one
    }

    @Test("rotation keeps `keep` previous files, oldest dropped first, and loses no record within them", arguments: [0, 1, 3])
    func rotation(keep: Int) throws {
        let path = try temporaryDirectory() + "/r.jsonl"
        var sample = try record(strategy: .websocket)
        sample.jobId = "job-0"
        let lineLength = try WireCoding.encode(sample).count + 1
        // 3 lines fit in a file; the 4th rotates.
        let log = AnalyticsLog(path: path, rotateBytes: 3 * lineLength + lineLength / 2, keep: keep)
        for i in 0..<13 {
            var r = sample
            r.jobId = "job-\(i)"
            try log.append(r)
        }
        // Files: live 12; .1 9…11; .2 6…8; .3 3…5; (.4 0…2 dropped for keep ≤ 3).
        #expect(log.read(includeRotated: false).records.map(\.jobId) == ["job-12"])
        let kept = (12 - 3 * keep)..<13
        #expect(log.read().records.map(\.jobId) == kept.map { "job-\($0)" })
        for n in 1...4 { #expect(FileManager.default.fileExists(atPath: log.rotated(n)) == (n <= keep), "file .\(n)") }
        // A smaller setting later drops what is beyond it at the next rotation.
        if keep == 3 {
            let smaller = AnalyticsLog(path: path, rotateBytes: log.rotateBytes, keep: 1)
            for i in 13..<16 {
                var r = sample
                r.jobId = "job-\(i)"
                try smaller.append(r)
            }
            #expect(!FileManager.default.fileExists(atPath: log.rotated(2)))
            #expect(smaller.read().records.map(\.jobId) == (12..<16).map { "job-\($0)" })
        }
    }

    @Test("readers take the shared lock: a reader waits while a writer holds the lock mid-rotation")
    func readersLock() async throws {
        let path = try temporaryDirectory() + "/locked.jsonl"
        let log = AnalyticsLog(path: path)
        var r = try record(strategy: .websocket)
        r.jobId = "before"
        try log.append(r)
        // A writer takes the exclusive lock and is half-way through a rotation: the live file is moved away.
        let fd = open(path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX) == 0)
        try FileManager.default.moveItem(atPath: path, toPath: path + ".half")
        let reader = Task.detached { log.read().records.map(\.jobId) }
        // The reader is blocked on the lock (the kernel lists it as waiting), or — without the lock — done already.
        var inode = stat()
        #expect(stat(path + ".lock", &inode) == 0)
        let waiting = await Self.until { Self.lockWaiters(inode: UInt64(inode.st_ino)) > 0 }
        // The writer finishes: the file is back where it belongs.
        try FileManager.default.moveItem(atPath: path + ".half", toPath: path)
        #expect(flock(fd, LOCK_UN) == 0)
        #expect(await reader.value == ["before"], "the reader saw the half-done rotation")
        #expect(waiting)
    }

    /// Processes waiting for a lock on the file with `inode`, from /proc/locks (`-> FLOCK …` lines).
    static func lockWaiters(inode: UInt64) -> Int {
        let text = (try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").filter { $0.contains("->") && $0.contains(":\(inode) ") }.count
    }

    static func until(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<400 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(25))
        }
        return condition()
    }

    @Test("memory: two WebSocket failures start the ladder at SSE; a server 5xx does not count; a success clears; verdicts expire")
    func memoryTransitions() throws {
        let memory = StrategyMemory(path: try temporaryDirectory() + "/m.json")
        let network = "2222222222222222"
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try memory.learn(from: try record(network: network, strategy: .pollingFallback, reason: .refused, status: 503), now: now)
        try memory.learn(from: try record(network: network, strategy: .sse, reason: .silent, from: .websocket), now: now)
        #expect(memory.preference(network: network, server: "embedded", now: now) == .ladder)
        try memory.learn(from: try record(network: network, strategy: .pollingFallback, reason: .dropped), now: now)
        #expect(memory.preference(network: network, server: "embedded", now: now) == .eventStreamFirst)
        #expect(memory.preference(network: "1111111111111111", server: "embedded", now: now) == .ladder)
        // expiry after 7 days
        #expect(memory.preference(network: network, server: "embedded", now: now.addingTimeInterval(7 * 86400 + 1)) == .ladder)
        // a probe success clears the verdict
        var probed = try record(network: network, strategy: .sse)
        probed.adaptiveEventStream = true
        probed.probeSucceeded = true
        try memory.learn(from: probed, now: now)
        #expect(memory.preference(network: network, server: "embedded", now: now) == .ladder)
        #expect(memory.entries(now: now).entries.first?.webSocket.consecutiveFailures == 0)
        #expect(try memory.forget(network: network) == 1)
    }

    @Test("memory: the event stream has its own verdict; with both skipped the run polls; an SSE success clears only SSE's")
    func memoryThreeTransports() throws {
        let memory = StrategyMemory(path: try temporaryDirectory() + "/m.json")
        let network = "3333333333333333"
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        // A buffering proxy: the WebSocket is refused and the event stream buffered, twice.
        for _ in 0..<2 {
            try memory.learn(from: try record(network: network, strategy: .pollingFallback, reason: .buffered, from: .sse), now: now)
        }
        #expect(memory.preference(network: network, server: "embedded", now: now) == .polling)
        let entry = try #require(memory.entries(now: now).entries.first)
        #expect(entry.eventStream.lastReason == "buffered")
        #expect(entry.webSocket.consecutiveFailures == 2 && entry.webSocket.lastReason == nil)
        // An adaptive run that started at SSE and was carried by it: SSE is fine again; the WebSocket was not tried.
        var carried = try record(network: network, strategy: .sse)
        carried.adaptiveEventStream = true
        try memory.learn(from: carried, now: now)
        #expect(memory.preference(network: network, server: "embedded", now: now) == .eventStreamFirst)
        #expect(memory.entries(now: now).entries.first?.webSocket.consecutiveFailures == 2)
    }

    @Test("a version 1 memory file (WebSocket verdict only, flat) still reads")
    func memoryVersionOne() throws {
        let path = try temporaryDirectory() + "/m.json"
        let old = #"{"version":1,"entries":{"n|s":{"network":"n","server":"s","consecutiveFailures":2,"preferPollingUntil":"2030-01-01T00:00:00Z","lastReason":"silent","updatedAt":"2026-01-01T00:00:00Z"}}}"#
        try Data(old.utf8).write(to: URL(fileURLWithPath: path))
        let memory = StrategyMemory(path: path)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(memory.entries(now: now).warning == nil)
        #expect(memory.entries(now: now).entries.first?.webSocket.lastReason == "silent")
        #expect(memory.preference(network: "n", server: "s", now: now) == .eventStreamFirst)
    }

    @Test("a corrupt memory file is ignored with a warning and rebuilt")
    func corruptMemory() throws {
        let path = try temporaryDirectory() + "/m.json"
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: path))
        let memory = StrategyMemory(path: path)
        #expect(memory.entries().warning != nil)
        try memory.learn(from: try record(strategy: .pollingFallback, reason: .silent))
        #expect(memory.entries().warning == nil)
        #expect(memory.entries().entries.count == 1)
    }

    static let route = """
        Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
        eth0\t00000000\t0101A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0
        eth0\t0001A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
        """
    static let arp = """
        IP address       HW type     Flags       HW address            Mask     Device
        192.168.1.1      0x1         0x2         aa:bb:cc:dd:ee:ff     *        eth0
        """

    @Test("the network fingerprint is stable, changes with the gateway, and hides the addresses")
    func fingerprint() {
        let a = NetworkFingerprint.make(route: Self.route, arp: Self.arp, environment: [:])
        let b = NetworkFingerprint.make(route: Self.route, arp: Self.arp, environment: [:])
        #expect(a == b)
        #expect(a.id.count == 16)
        #expect(a.interface == "eth0")
        let otherGateway = NetworkFingerprint.make(route: Self.route.replacingOccurrences(of: "0101A8C0", with: "FE01A8C0"), arp: Self.arp, environment: [:])
        #expect(otherGateway.id != a.id)
        let otherMAC = NetworkFingerprint.make(route: Self.route, arp: Self.arp.replacingOccurrences(of: "aa:bb", with: "00:11"), environment: [:])
        #expect(otherMAC.id != a.id)
        let proxied = NetworkFingerprint.make(route: Self.route, arp: Self.arp, environment: ["https_proxy": "http://proxy:3128"])
        #expect(proxied.id != a.id)
        #expect(!a.id.contains("192"))
        #expect(NetworkFingerprint.serverID("https://scan.example.com") == NetworkFingerprint.serverID("https://SCAN.example.com:443"))
        #expect(NetworkFingerprint.serverID(nil) == "embedded")
    }

    static let ipv6Route = """
        00000000000000000000000000000000 00 00000000000000000000000000000000 00 fe800000000000000000000000000001 00000400 00000001 00000000 00000003     eth0
        fe800000000000000000000000000000 40 00000000000000000000000000000000 00 00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth0
        00000000000000000000000000000000 00 00000000000000000000000000000000 00 00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo
        """

    @Test("an IPv6-only host: each network's default route gives its own id")
    func fingerprintIPv6() {
        let noIPv4 = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
        let home = NetworkFingerprint.make(route: noIPv4, ipv6Route: Self.ipv6Route, arp: "", environment: [:])
        let cafe = NetworkFingerprint.make(
            route: noIPv4, ipv6Route: Self.ipv6Route.replacingOccurrences(of: "fe800000000000000000000000000001", with: "fe80000000000000021122fffe334455"),
            arp: "", environment: [:])
        let none = NetworkFingerprint.make(route: noIPv4, ipv6Route: "", arp: "", environment: [:])
        #expect(home.id != cafe.id)
        #expect(home.id != none.id)
        #expect(home.interface == "eth0")
        #expect(home == NetworkFingerprint.make(route: noIPv4, ipv6Route: Self.ipv6Route, arp: "", environment: [:]))
        // The loopback "unreachable" default route alone is no network.
        let loopbackOnly = Self.ipv6Route.split(separator: "\n").filter { $0.hasSuffix("lo") }.joined(separator: "\n")
        #expect(NetworkFingerprint.make(route: noIPv4, ipv6Route: loopbackOnly, arp: "", environment: [:]).id == none.id)
        // An IPv4-only host keeps the id earlier versions gave it (SHA-256 of "eth0|192.168.1.1|aa:bb:cc:dd:ee:ff||||"),
        // so remembered verdicts stay valid.
        #expect(NetworkFingerprint.make(route: Self.route, ipv6Route: "", arp: Self.arp, environment: [:]).id == "1fb0d0bf3211ca53")
    }

    @Test("a cold ARP cache (no entry, or an incomplete one) gives the same id as a warm one once the MAC was seen")
    func fingerprintColdARP() {
        let warm = NetworkFingerprint.make(route: Self.route, arp: Self.arp, environment: [:])
        let learned = warm.gatewayMAC
        #expect(learned?.mac == "aa:bb:cc:dd:ee:ff")
        let known = learned.map { [$0.gateway: $0.mac] } ?? [:]
        let emptyARP = "IP address       HW type     Flags       HW address            Mask     Device\n"
        let incomplete = emptyARP + "192.168.1.1      0x1         0x0         00:00:00:00:00:00     *        eth0\n"
        for arp in [emptyARP, incomplete] {
            #expect(NetworkFingerprint.make(route: Self.route, arp: arp, environment: [:], knownGatewayMACs: known).id == warm.id)
        }
        // Another network with the same gateway address but another MAC is still told apart.
        let other = NetworkFingerprint.make(
            route: Self.route, arp: Self.arp.replacingOccurrences(of: "aa:bb", with: "00:11"), environment: [:], knownGatewayMACs: known)
        #expect(other.id != warm.id)
    }

    @Test("records never contain the token, and round-trip")
    func recordRoundTrip() throws {
        let r = try record(strategy: .pollingFallback, reason: .refused, status: 503)
        let line = String(decoding: try WireCoding.encode(r), as: UTF8.self)
        #expect(!line.contains("\n"))
        let decoded = try WireCoding.decode(AnalyticsRecord.self, from: Data(line.utf8))
        let again = String(decoding: try WireCoding.encode(decoded), as: UTF8.self)
        #expect(again == line, "\(again)\n\(line)")  // dates are kept to the millisecond
    }
}
