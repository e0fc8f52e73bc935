import Foundation
import NIOConcurrencyHelpers
import ScanClient
import ScanProtocol

/// Shows scan progress on stderr: one live line per image on a terminal (redrawn at most 10×/s),
/// a plain line per stage change otherwise, nothing but errors with `--quiet`.
final class ProgressDisplay: Sendable {
    enum Style: Sendable { case live, lines, quiet }

    private struct Line {
        var name: String
        var fraction = 0.0
        var stage = "preparing"
        var path = ""
        var lastStage = ""
    }

    let style: Style
    private let state = NIOLockedValueBox<(lines: [Int: Line], lastDraw: ContinuousClock.Instant?, drawnLines: Int, overall: String?)>(([:], nil, 0, nil))

    init(quiet: Bool, forceLines: Bool = false) {
        if quiet {
            style = .quiet
        } else if !forceLines && isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["TERM"] != "dumb" {
            style = .live
        } else {
            style = .lines
        }
    }

    func begin(_ slot: Int, name: String) {
        state.withLockedValue { $0.lines[slot] = Line(name: name) }
        redraw(force: true)
    }

    func uploading(_ slot: Int, sent: Int, total: Int) {
        guard total > 0 else { return }
        state.withLockedValue { s in
            s.lines[slot]?.stage = "uploading \(ProgressBar.percent(part: sent, of: total))%"
        }
        redraw(force: false)
    }

    func path(_ slot: Int, _ path: EventPath) {
        state.withLockedValue { $0.lines[slot]?.path = path.shortName }
        redraw(force: false)
    }

    func event(_ slot: Int, _ event: JobEvent, fraction: Double) {
        let stageText = event.state.isTerminal ? event.state.rawValue : event.stage.label
        let changed: (String, Line)? = state.withLockedValue { s in
            guard var line = s.lines[slot] else { return nil }
            line.fraction = max(line.fraction, ProgressFraction.clamped(fraction))
            line.stage = stageText
            let changed = line.lastStage != stageText
            line.lastStage = stageText
            s.lines[slot] = line
            return changed ? (stageText, line) : nil
        }
        if style == .lines, let (_, line) = changed {
            write("\(line.name): \(ProgressBar.percent(line.fraction))% \(line.stage)\(line.path.isEmpty ? "" : " [\(line.path)]")\n")
        }
        redraw(force: event.state.isTerminal)
    }

    /// Removes the slot's live line (the caller prints the final summary).
    func end(_ slot: Int) {
        guard style == .live else { return }
        clearLive()
        state.withLockedValue { _ = $0.lines.removeValue(forKey: slot) }
        redraw(force: true)
    }

    /// Sets the overall line shown below the per-image lines (a batch's totals); printed as a plain
    /// line when there is no terminal.
    func overall(_ text: String, print plain: Bool = false) {
        state.withLockedValue { $0.overall = text }
        if style == .lines && plain { write(text + "\n") }
        redraw(force: false)
    }

    /// Clears the live region for good (a batch's closing summary goes where it was); later messages
    /// are plain lines.
    func finish() {
        clearLive()
        state.withLockedValue { s in
            s.lines = [:]
            s.overall = nil
        }
    }

    /// Prints a message above the live lines.
    func message(_ text: String, error: Bool = false) {
        if style == .quiet && !error { return }
        clearLive()
        write(text.hasSuffix("\n") ? text : text + "\n")
        redraw(force: true)
    }

    private func clearLive() {
        guard style == .live else { return }
        let drawn = state.withLockedValue { s in
            let n = s.drawnLines
            s.drawnLines = 0
            return n
        }
        // The cursor is on the last live line: clear it, then each line above, ending at the top one's start.
        if drawn > 0 { write("\r\u{1B}[2K" + String(repeating: "\u{1B}[1A\u{1B}[2K", count: drawn - 1)) }
    }

    private func redraw(force: Bool) {
        guard style == .live else { return }
        let text: String? = state.withLockedValue { s in
            let now = ContinuousClock.now
            if !force, let last = s.lastDraw, now - last < .milliseconds(100) { return nil }
            s.lastDraw = now
            let lines = s.lines.keys.sorted().compactMap { s.lines[$0] }.map(Self.render) + (s.overall.map { [$0] } ?? [])
            let previous = s.drawnLines
            s.drawnLines = lines.count
            let up = previous > 1 ? String(repeating: "\u{1B}[1A", count: previous - 1) : ""
            return (previous > 0 ? up + "\r" : "") + lines.map { "\u{1B}[2K" + $0 }.joined(separator: "\n")
        }
        if let text { write(text) }
    }

    private static func render(_ line: Line) -> String {
        let width = 24
        let bar = ProgressBar.bar(line.fraction, width: width)
        let percent = String(ProgressBar.percent(line.fraction)).leftPad(3)
        let name = line.name.count > 28 ? "…" + line.name.suffix(27) : line.name
        return "\(name) \(bar) \(percent)% \(line.stage)\(line.path.isEmpty ? "" : " [\(line.path)]")"
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}

extension String {
    func leftPad(_ width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}

extension EventPath {
    /// The tag a live line shows for the path carrying progress.
    var shortName: String {
        switch self {
        case .websocket: "ws"
        case .sse: "sse"
        case .polling, .upload: "poll"
        }
    }
}
