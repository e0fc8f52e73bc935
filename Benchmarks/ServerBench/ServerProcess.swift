import Foundation
import ScanClient
import ScanProtocol

/// `bookscan serve` as a child process on loopback, with its memory and CPU read from /proc.
final class ServerProcess {
    let process: Process
    let port: Int
    var pid: Int32 { process.processIdentifier }
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// `extra`: more `serve` arguments (`--database URL --instance NAME`, `--instant-scan`).
    init(binary: String, port: Int, jobs: Int, workers: Int, stepDelay: Double?, heartbeat: Double, extra: [String] = []) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "serve", "--host", "127.0.0.1", "--port", "\(port)", "--workers", "\(workers)", "--queue", "\(jobs)",
            "--heartbeat", "\(heartbeat)",
        ] + (stepDelay.map { ["--scan-step-delay", "\($0)"] } ?? []) + extra + [
            // Every subscriber comes from 127.0.0.1: lift the per-client connection cap (default 256),
            // and give heads queued behind thousands of connects more than the default 10 s.
            "--max-connections-per-client", "0", "--header-timeout", "60",
        ]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        self.process = process
        self.port = port
    }

    /// Waits until `/healthz` answers (at most `within`).
    func waitUntilReady(within: Duration) async -> Bool {
        let http = CurlHTTPClient(configuration: .init(connectTimeout: .seconds(1), totalTimeout: .seconds(2)))
        let deadline = ContinuousClock.now + within
        while ContinuousClock.now < deadline, process.isRunning {
            if let response = try? await http.send(HTTPRequestData(method: "GET", url: baseURL + Routes.health)), response.status == 200 {
                return true
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// SIGTERM, then SIGKILL if it has not exited within `grace`.
    func stop(grace: Duration = .seconds(10)) async {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = ContinuousClock.now + grace
        while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(100)) }
        if process.isRunning { kill(pid, SIGKILL) }
    }

    /// Memory and thread count from `/proc/PID/status`.
    func memory() -> ProcessMemory { ProcessMemory.read(pid: pid) }

    /// User + system CPU seconds the process has used so far.
    func cpuSeconds() -> Double? { processCPUSeconds("\(pid)") }
}

/// User + system CPU seconds of a process (`self` for this one), from `/proc/PID/stat`.
func processCPUSeconds(_ pid: String) -> Double? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = text.lastIndex(of: ")")
    else { return nil }
    // Fields after the command name: state is field 3, utime 14, stime 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

/// VmRSS / VmHWM / Threads of a process, in MiB.
struct ProcessMemory: Sendable {
    var rssMiB: Double?
    var peakMiB: Double?
    var threads: Int?

    static func read(pid: Int32) -> ProcessMemory {
        var memory = ProcessMemory()
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return memory }
        for line in text.split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard parts.count >= 2 else { continue }
            switch parts[0] {
            case "VmRSS:": memory.rssMiB = Double(parts[1]).map { $0 / 1024 }
            case "VmHWM:": memory.peakMiB = Double(parts[1]).map { $0 / 1024 }
            case "Threads:": memory.threads = Int(parts[1])
            default: break
            }
        }
        return memory
    }
}

/// User + system CPU seconds of this process.
func ownCPUSeconds() -> Double { processCPUSeconds("self") ?? 0 }

/// Runs `body` for every item with at most `width` at once.
func forEachConcurrently<T: Sendable>(_ items: [T], width: Int, _ body: @escaping @Sendable (T) async -> Void) async {
    await withTaskGroup(of: Void.self) { group in
        var iterator = items.makeIterator()
        for _ in 0..<max(1, width) {
            guard let item = iterator.next() else { break }
            group.addTask { await body(item) }
        }
        while await group.next() != nil {
            if let item = iterator.next() { group.addTask { await body(item) } }
        }
    }
}
