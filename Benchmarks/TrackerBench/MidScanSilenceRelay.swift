import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A socket that goes silent in the middle of a scan: a plain TCP relay placed in front of a
/// pass-through `FaultProxy` (which still counts the requests). HTTP connections are relayed
/// untouched. On a WebSocket connection (101) it forwards the first `eventLimit` event frames, then
/// swallows every byte both ways while keeping both TCP connections open (a NAT or proxy that
/// stops passing frames). Only one connection per job goes silent; the client's reconnects pass.
/// FaultProxy has no such fault, so this lives in the benchmark (blocking sockets, a thread per
/// direction; a handful of connections).
final class MidScanSilenceRelay: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let upstreamPort: Int
    private let eventLimit: Int
    private let silencedJobs = Mutex<Set<String>>([])
    private let live = Mutex<(stopped: Bool, fds: Set<Int32>)>((false, []))
    private let silences = Mutex<[String: Silence]>([:])

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// When a job's socket went silent: just after its last forwarded event (`lastSeq`) was written.
    struct Silence: Sendable {
        var at: Date
        var lastSeq: Int
    }

    /// Keyed by lowercase job id.
    var silenced: [String: Silence] { silences.withLock { $0 } }

    struct SocketError: Error { let call: String; let errno: Int32 }

    init(upstreamPort: Int, silentAfterEvents: Int) throws {
        self.upstreamPort = upstreamPort
        self.eventLimit = silentAfterEvents
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketError(call: "socket", errno: errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 128) == 0 else { close(fd); throw SocketError(call: "bind/listen", errno: errno) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    func stop() {
        let fds = live.withLock { state -> Set<Int32> in
            state.stopped = true
            return state.fds
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for fd in fds { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let thread = Thread { [self] in serve(client: client) }
            thread.start()
        }
    }

    private func track(_ fd: Int32) -> Bool {
        live.withLock { state in
            if state.stopped { return false }
            state.fds.insert(fd)
            return true
        }
    }

    private func untrackAndClose(_ fd: Int32) {
        live.withLock { _ = $0.fds.remove(fd) }
        close(fd)
    }

    /// One connection: read the request head, connect upstream, relay both ways.
    private func serve(client: Int32) {
        guard track(client) else { close(client); return }
        var one: Int32 = 1
        setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var head: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while Self.find([13, 10, 13, 10], in: head) == nil {
            let n = read(client, &buffer, buffer.count)
            if n <= 0 { untrackAndClose(client); return }
            head += buffer[0..<n]
        }
        let text = String(decoding: head, as: UTF8.self)
        let requestLine = text.prefix { $0 != "\r" }
        let path = requestLine.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        let isUpgrade = text.lowercased().contains("upgrade: websocket")
        let job = path.lowercased().split(separator: "/").first { $0.count == 36 && $0.filter { $0 == "-" }.count == 4 }.map(String.init) ?? path

        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: UInt16(upstreamPort))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard upstream >= 0, connected == 0, track(upstream) else {
            if upstream >= 0 { close(upstream) }
            untrackAndClose(client)
            return
        }
        setsockopt(upstream, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        let connection = Connection()
        guard Self.writeAll(upstream, head) else {
            untrackAndClose(upstream)
            untrackAndClose(client)
            return
        }
        let down = Thread { [self] in
            serverToClient(upstream: upstream, client: client, isUpgrade: isUpgrade, job: job, connection: connection)
            finish(connection, client, upstream)
        }
        down.start()
        // Client → server, until the client closes; nothing passes once the connection is silent.
        while true {
            let n = read(client, &buffer, buffer.count)
            if n <= 0 { break }
            if connection.silent.load(ordering: .acquiring) { continue }
            if !Self.writeAll(upstream, Array(buffer[0..<n])) { break }
        }
        // The client is gone: cut the upstream too (this also ends the other direction).
        shutdown(upstream, Int32(SHUT_RDWR))
        shutdown(client, Int32(SHUT_RDWR))
        finish(connection, client, upstream)
    }

    private final class Connection: Sendable {
        let silent = Atomic<Bool>(false)
        let finishedDirections = Atomic<Int>(0)
    }

    private func finish(_ connection: Connection, _ client: Int32, _ upstream: Int32) {
        if connection.finishedDirections.add(1, ordering: .acquiringAndReleasing).newValue == 2 {
            untrackAndClose(client)
            untrackAndClose(upstream)
        }
    }

    private func serverToClient(upstream: Int32, client: Int32, isUpgrade: Bool, job: String, connection: Connection) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        var pending: [UInt8] = []
        var headDone = !isUpgrade
        var switched = false
        var events = 0
        while true {
            let n = read(upstream, &buffer, buffer.count)
            if n <= 0 { break }
            if connection.silent.load(ordering: .acquiring) { continue }
            if headDone && !switched {
                if !Self.writeAll(client, Array(buffer[0..<n])) { break }
                continue
            }
            pending += buffer[0..<n]
            if !headDone {
                guard let end = Self.find([13, 10, 13, 10], in: pending) else { continue }
                let head = Array(pending[0..<(end + 4)])
                pending.removeFirst(end + 4)
                headDone = true
                switched = String(decoding: head.prefix(12), as: UTF8.self).hasSuffix("101")
                if !Self.writeAll(client, head) { break }
                if !switched {
                    if !pending.isEmpty, !Self.writeAll(client, pending) { break }
                    pending = []
                    continue
                }
            }
            // WebSocket frames: forward whole frames, count events, go silent after the limit.
            var out: [UInt8] = []
            var lastSeq: Int?
            while let length = Self.frameLength(pending) {
                let frame = Array(pending[0..<length])
                pending.removeFirst(length)
                out += frame
                if Self.isEvent(frame) {
                    events += 1
                    if events >= eventLimit, silencedJobs.withLock({ $0.insert(job).inserted }) {
                        connection.silent.store(true, ordering: .releasing)
                        lastSeq = Self.seq(frame)
                        break
                    }
                }
            }
            if !out.isEmpty, !Self.writeAll(client, out) { break }
            if let lastSeq { silences.withLock { $0[job] = Silence(at: Date(), lastSeq: lastSeq) } }
        }
        // The server closed. A silent connection stays open towards the client (it just never
        // speaks again); otherwise pass the close on.
        if !connection.silent.load(ordering: .acquiring) { shutdown(client, Int32(SHUT_RDWR)) }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where Array(haystack[i..<(i + needle.count)]) == needle { return i }
        return nil
    }

    private static func frameLength(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        let masked = bytes[1] & 0x80 != 0
        var length = Int(bytes[1] & 0x7F)
        var header = 2
        if length == 126 {
            guard bytes.count >= 4 else { return nil }
            length = Int(bytes[2]) << 8 | Int(bytes[3])
            header = 4
        } else if length == 127 {
            guard bytes.count >= 10 else { return nil }
            length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }
            header = 10
        }
        let total = header + (masked ? 4 : 0) + length
        return bytes.count >= total ? total : nil
    }

    private static func seq(_ frame: [UInt8]) -> Int {
        let text = String(decoding: frame, as: UTF8.self)
        guard let range = text.range(of: "\"seq\":") else { return -1 }
        return Int(text[range.upperBound...].prefix { $0.isNumber }) ?? -1
    }

    private static func isEvent(_ frame: [UInt8]) -> Bool {
        guard let b0 = frame.first, b0 & 0x0F == 0x1 else { return false }
        return String(decoding: frame, as: UTF8.self).contains("\"type\":\"event\"")
    }
}
