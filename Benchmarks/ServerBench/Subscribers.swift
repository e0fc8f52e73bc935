import Foundation
import Logging
import NIOCore
import NIOPosix
import ScanProtocol
import Synchronization
import WSClient

/// Latencies in 0.1 ms buckets up to 120 s (wall clock, so they can be compared with server timestamps).
final class LatencyHistogram: Sendable {
    private static let buckets = 1_200_000
    private let state = Mutex<(counts: [Int], total: Int, negative: Int)>(([Int](repeating: 0, count: LatencyHistogram.buckets), 0, 0))

    func record(milliseconds: Double) {
        state.withLock { s in
            s.total += 1
            if milliseconds < 0 { s.negative += 1 }
            let index = min(Self.buckets - 1, max(0, Int(milliseconds * 10)))
            s.counts[index] += 1
        }
    }

    var count: Int { state.withLock { $0.total } }
    var negativeCount: Int { state.withLock { $0.negative } }

    /// The `p` quantile in milliseconds (bucket upper edge), nil when empty.
    func percentile(_ p: Double) -> Double? {
        state.withLock { s in
            guard s.total > 0 else { return nil }
            let target = max(1, Int((p * Double(s.total)).rounded(.up)))
            var seen = 0
            for (index, count) in s.counts.enumerated() where count > 0 {
                seen += count
                if seen >= target { return Double(index + 1) / 10 }
            }
            return Double(Self.buckets) / 10
        }
    }
}

/// Counters shared by every subscriber.
final class SubscriberStats: Sendable {
    let attempted = Atomic<Int>(0)
    let opened = Atomic<Int>(0)
    let closed = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
    let liveEvents = Atomic<Int>(0)
    let replayedEvents = Atomic<Int>(0)
    let heartbeats = Atomic<Int>(0)
    let terminalEvents = Atomic<Int>(0)
    /// Set once every subscriber of the phase has been attempted: events then count as steady state.
    let steady = Atomic<Bool>(false)
    let stop = Atomic<Bool>(false)
    let rampLatency = LatencyHistogram()
    let steadyLatency = LatencyHistogram()
    private let failures = Mutex<[String: Int]>([:])

    var open: Int { opened.load(ordering: .relaxed) - closed.load(ordering: .relaxed) }

    func fail(_ reason: String) {
        failed.add(1, ordering: .relaxed)
        failures.withLock { $0[String(reason.prefix(100)), default: 0] += 1 }
    }

    var failureReasons: [String: Int] { failures.withLock { $0 } }
}

/// A cheap reader of server frames (no JSONDecoder: 10,000 sockets share two cores with the server).
/// Frames are encoded with sorted keys: `{"event":{…,"timestamp":"…"},"type":"event"}` or `{"heartbeat":…}`.
enum FrameScan {
    enum Kind { case event, heartbeat, other }

    static func parse(_ text: String) -> (kind: Kind, timestamp: Double?, terminal: Bool) {
        var text = text
        return text.withUTF8 { bytes in
            let kind: Kind =
                if starts(bytes, with: #"{"event":"#) { .event } else if starts(bytes, with: #"{"heartbeat":"#) { .heartbeat } else { .other }
            guard kind == .event, let at = find(bytes, #""timestamp":""#) else { return (kind, nil, false) }
            let terminal = find(bytes, #""state":"succeeded""#) != nil || find(bytes, #""state":"failed""#) != nil
                || find(bytes, #""state":"canceled""#) != nil
            return (kind, timestamp(bytes, from: at), terminal)
        }
    }

    private static func starts(_ bytes: UnsafeBufferPointer<UInt8>, with prefix: StaticString) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard bytes.count >= count else { return false }
        let p = prefix.utf8Start
        for i in 0..<count where bytes[i] != p[i] { return false }
        return true
    }

    /// The index just after the first occurrence of `needle`.
    private static func find(_ bytes: UnsafeBufferPointer<UInt8>, _ needle: StaticString) -> Int? {
        let count = needle.utf8CodeUnitCount, p = needle.utf8Start
        guard bytes.count >= count else { return nil }
        var i = 0
        outer: while i <= bytes.count - count {
            for j in 0..<count where bytes[i + j] != p[j] {
                i += 1
                continue outer
            }
            return i + count
        }
        return nil
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS(.fff…)Z` at `start` into seconds since 1970.
    private static func timestamp(_ b: UnsafeBufferPointer<UInt8>, from start: Int) -> Double? {
        func number(_ at: Int, _ length: Int) -> Int? {
            guard at + length <= b.count else { return nil }
            var value = 0
            for i in at..<(at + length) {
                let digit = Int(b[i]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = number(start, 4), let month = number(start + 5, 2), let day = number(start + 8, 2),
            let hour = number(start + 11, 2), let minute = number(start + 14, 2), let second = number(start + 17, 2)
        else { return nil }
        var fraction = 0.0, scale = 0.1, i = start + 19
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            while i < b.count, let digit = number(i, 1) {
                fraction += Double(digit) * scale
                scale /= 10
                i += 1
            }
        }
        guard i < b.count, b[i] == UInt8(ascii: "Z") else { return nil }
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second) + fraction
    }
}

/// One events subscriber: connects, says hello, then times every event frame until the job ends,
/// the server closes, or the phase stops.
func subscribe(url: String, stats: SubscriberStats, logger: Logger) async {
    stats.attempted.add(1, ordering: .relaxed)
    var configuration = WebSocketClientConfiguration()
    configuration.autoPing = .disabled
    let wasOpened = Flag()
    do {
        try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) { inbound, outbound, _ in
            try await outbound.write(.text(ClientHello.frame))
            let hello = Date().timeIntervalSince1970
            stats.opened.add(1, ordering: .relaxed)
            wasOpened.set()
            defer { stats.closed.add(1, ordering: .relaxed) }
            for try await message in inbound.messages(maxSize: 1 << 22) {
                let now = Date().timeIntervalSince1970
                guard case .text(let text) = message else { continue }
                let frame = FrameScan.parse(text)
                switch frame.kind {
                case .event:
                    guard let timestamp = frame.timestamp else { break }
                    if frame.terminal { stats.terminalEvents.add(1, ordering: .relaxed) }
                    // Timestamps have millisecond resolution; an event stamped before hello was replayed.
                    if timestamp + 0.002 < hello {
                        stats.replayedEvents.add(1, ordering: .relaxed)
                    } else {
                        stats.liveEvents.add(1, ordering: .relaxed)
                        let histogram = stats.steady.load(ordering: .relaxed) ? stats.steadyLatency : stats.rampLatency
                        histogram.record(milliseconds: (now - timestamp) * 1000)
                    }
                case .heartbeat: stats.heartbeats.add(1, ordering: .relaxed)
                case .other: break
                }
                // Returning from the handler makes WSClient close the socket normally.
                if stats.stop.load(ordering: .relaxed) { return }
            }
        }
    } catch {
        if !stats.stop.load(ordering: .relaxed) { stats.fail((wasOpened.isSet ? "after open: " : "") + "\(error)") }
    }
}

final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}
