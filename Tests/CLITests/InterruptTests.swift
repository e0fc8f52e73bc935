import BookscanTestSupport
import Foundation
import RunModel
import ScanAnalytics
import ScanClient
import ScanProtocol
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C sent to a real `bookscan` child: the first stops watching and records the run as stopped,
/// a second exits at once (11) — and still leaves the analytics record and the batch result.
@Suite("Ctrl-C")
struct InterruptTests {
    let cli = CLITests()

    /// The child's signal state when it was sent SIGINT (blocked, ignored, caught masks of each thread),
    /// so a failure says whether the signal could be delivered at all.
    static func signalState(_ pid: Int32) -> String {
        let tasks: [String]
        do { tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") } catch {
            return "pid \(pid): /proc/\(pid)/task unreadable: \(error)"
        }
        return tasks.sorted().map { task in
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
            let lines = status.split(separator: "\n").filter { $0.hasPrefix("Name:") || $0.hasPrefix("SigBlk:") || $0.hasPrefix("SigCgt:") }
            return lines.map { $0.replacingOccurrences(of: "\t", with: " ") }.joined(separator: " ")
        }.joined(separator: "; ")
    }

    /// The pid of the live process whose command line has `argument` (the test's unique analytics log
    /// path), read from /proc; nil when none. Under heavy load `Process.processIdentifier` was seen
    /// naming no live process (/proc/PID/task unreadable) while the child ran on, never signalled.
    static func pid(withArgument argument: String) -> Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), let cmdline = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { continue }
            if cmdline.split(separator: 0).contains(where: { String(decoding: $0, as: UTF8.self) == argument }) { return pid }
        }
        return nil
    }

    static func remove(_ paths: [String]) {
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }

    static func temporaryPath(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
    }

    @Test("Ctrl-C while a resubmitted job is followed stops it: exit 11 and a stopped analytics record")
    func interruptAfterResubmission() async throws {
        // The first poll says the job is lost: the client resubmits it, then follows it forever.
        let service = try ScriptedService(
            upload: { _ in .snapshot(state: .running, stage: .decoding, fraction: 0.1, seq: 1) },
            poll: { n in n == 0 ? .status(404, .notFound) : .snapshot(state: .running, stage: .findingRows, fraction: 0.5, seq: 2) })
        defer { service.stop() }
        let log = Self.temporaryPath("interrupt-resubmitted") + ".jsonl"
        defer { Self.remove([log, log + ".lock"]) }
        let child = try ChildProcess.bookscan([
            "scan", HostileNumbersTests.sample, "--server", service.url, "--strategy", "polling", "--poll-interval", "100ms",
            "--timeout", "60s", "--analytics-log", log,
        ])
        // The resubmitted job is being followed: a second upload, then a poll after it.
        let resubmitted = await ChildProcess.until {
            let requests = service.server.requests
            guard let second = requests.indices.filter({ requests[$0].hasPrefix("PUT") }).dropFirst().first else { return false }
            return requests[(second + 1)...].contains { $0.hasPrefix("GET /v1/scans/") }
        }
        #expect(resubmitted, "\(service.server.requests)")
        let pid = Self.pid(withArgument: log) ?? child.pid
        let signals = "pid \(pid) (Process says \(child.pid)): " + Self.signalState(pid)
        let sent = kill(pid, SIGINT) == 0 ? "delivered" : "kill failed, errno \(errno)"
        let status = await child.exit()
        #expect(child.process.terminationReason == .exit)
        #expect(status == 11, "\(child.stderr)\nsignal state at SIGINT: \(signals); \(sent)")
        #expect(child.stderr.contains("interrupted"), "\(child.stderr)")
        let records = AnalyticsLog(path: log).read().records
        #expect(records.count == 1)
        #expect(records.first?.outcome == .stopped)
        #expect(records.first?.resubmissions == 1)
    }

    @Test("two Ctrl-Cs during a batch of resubmitted jobs: exit 11, and every running photo has its stopped result and analytics record")
    func secondInterruptInBatch() async throws {
        // Each job is lost at its first poll, resubmitted, then followed forever.
        let service = try ScriptedService(
            upload: { _ in .snapshot(state: .running, stage: .decoding, fraction: 0.1, seq: 1) },
            poll: { n in n == 0 ? .status(404, .notFound) : .snapshot(state: .running, stage: .findingRows, fraction: 0.5, seq: 2) })
        defer { service.stop() }
        let folder = Self.temporaryPath("interrupt-batch")
        let log = Self.temporaryPath("interrupt-batch") + ".jsonl"
        defer { Self.remove([folder, log, log + ".lock"]) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["a.jpg", "b.jpg"] {
            try FileManager.default.copyItem(atPath: HostileNumbersTests.sample, toPath: folder + "/" + name)
        }
        let child = try ChildProcess.bookscan([
            "batch", folder, "--jobs", "2", "--server", service.url, "--strategy", "polling", "--poll-interval", "100ms",
            "--timeout", "60s", "--analytics-log", log,
        ])
        let following = await ChildProcess.until {
            let requests = service.server.requests
            // Both jobs resubmitted (4 uploads) and followed again (4 polls: one lost, one after, each).
            return requests.filter { $0.hasPrefix("PUT") }.count == 4 && requests.filter { $0.hasPrefix("GET /v1/scans/") }.count >= 4
        }
        #expect(following, "\(service.server.requests)")
        let pid = Self.pid(withArgument: log) ?? child.pid
        let signals = "pid \(pid) (Process says \(child.pid)): " + Self.signalState(pid)
        let sent = kill(pid, SIGINT) == 0 && kill(pid, SIGINT) == 0 ? "delivered" : "kill failed, errno \(errno)"
        let status = await child.exit()
        #expect(child.process.terminationReason == .exit)
        #expect(status == 11, "\(child.stderr)\nsignal state at SIGINT: \(signals); \(sent)")
        for name in ["a.jpg", "b.jpg"] {
            let data = FileManager.default.contents(atPath: folder + "/.bookscan/" + name + ".json")
            let listing = (try? FileManager.default.subpathsOfDirectory(atPath: folder)) ?? []
            let result = try #require(
                data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }, "no result for \(name): \(listing) \(child.stderr)")
            #expect((result["report"] as? [String: Any])?["outcome"] as? String == "stopped", "\(result)")
        }
        let records = AnalyticsLog(path: log).read().records
        #expect(records.count == 2, "\(records)")
        #expect(records.allSatisfy { $0.outcome == .stopped })
    }
}
