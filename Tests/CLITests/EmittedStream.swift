import Foundation
import ScanProtocol

/// The `--events` lines of one `bookscan scan` run (NDJSON on stdout, one `{"event": …, "path": …}`
/// per emitted event), checked against the tracker's invariants as a user would: seq strictly
/// increasing, state, stage and fraction never backwards (a failed or canceled end may show less),
/// exactly one terminal event and nothing after it.
struct EmittedStream {
    let events: [JobEvent]

    init(stdout: String) {
        events = stdout.split(separator: "\n").compactMap { line -> JobEvent? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let event = object["event"], let data = try? JSONSerialization.data(withJSONObject: event)
            else { return nil }
            return try? WireCoding.decode(JobEvent.self, from: data)
        }
    }

    /// Everything wrong with the stream; empty when all is well.
    var problems: [String] {
        var problems: [String] = []
        func describe(_ e: JobEvent) -> String { "seq \(e.seq) \(e.state.rawValue)/\(e.stage.rawValue) \(e.fraction)" }
        for (a, b) in zip(events, events.dropFirst()) {
            if b.seq <= a.seq { problems.append("seq went backwards or repeated: \(describe(a)) then \(describe(b))") }
            if b.state.progressRank < a.state.progressRank { problems.append("state went backwards: \(describe(a)) then \(describe(b))") }
            if b.stage.progressRank < a.stage.progressRank { problems.append("stage went backwards: \(describe(a)) then \(describe(b))") }
            if b.state != .failed, b.state != .canceled, b.fraction < a.fraction {
                problems.append("fraction went backwards: \(describe(a)) then \(describe(b))")
            }
        }
        let terminals = events.count { $0.state.isTerminal }
        if terminals != 1 { problems.append("\(terminals) terminal events, expected exactly 1") }
        if terminals == 1, events.last?.state.isTerminal != true { problems.append("an event came after the terminal one") }
        return problems
    }
}
