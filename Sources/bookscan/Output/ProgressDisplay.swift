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

    private struct DisplayState {
        var lines: [Int: Line] = [:]
        var lastDraw: ContinuousClock.Instant?
        var drawnLines = 0
        var overall: String?
    }

    let style: Style
    private let state = NIOLockedValueBox(DisplayState())

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
        draw(force: true) { $0.lines[slot] = Line(name: name) }
    }

    func uploading(_ slot: Int, sent: Int, total: Int) {
        guard total > 0 else { return }
        draw(force: false) { $0.lines[slot]?.stage = "uploading \(ProgressBar.percent(part: sent, of: total))%" }
    }

    func path(_ slot: Int, _ path: EventPath) {
        draw(force: false) { $0.lines[slot]?.path = path.shortName }
    }

    func event(_ slot: Int, _ event: JobEvent, fraction: Double) {
        let stageText = event.state.isTerminal ? event.state.rawValue : event.stage.label
        let style = self.style
        draw(force: event.state.isTerminal) { s in
            guard var line = s.lines[slot] else { return }
            line.fraction = max(line.fraction, ProgressFraction.clamped(fraction))
            line.stage = stageText
            let changed = line.lastStage != stageText
            line.lastStage = stageText
            s.lines[slot] = line
            if style == .lines && changed {
                Self.write("\(line.name): \(ProgressBar.percent(line.fraction))% \(line.stage)\(line.path.isEmpty ? "" : " [\(line.path)]")\n")
            }
        }
    }

    /// Removes the slot's live line (the caller prints the final summary).
    func end(_ slot: Int) {
        guard style == .live else { return }
        state.withLockedValue { s in
            Self.clearLive(&s)
            s.lines.removeValue(forKey: slot)
            Self.redraw(&s, force: true)
        }
    }

    /// Sets the overall line shown below the per-image lines (a batch's totals); printed as a plain
    /// line when there is no terminal.
    func overall(_ text: String, print plain: Bool = false) {
        let style = self.style
        draw(force: false) { s in
            s.overall = text
            if style == .lines && plain { Self.write(text + "\n") }
        }
    }

    /// Clears the live region for good (a batch's closing summary goes where it was); later messages
    /// are plain lines.
    func finish() {
        let live = style == .live
        state.withLockedValue { s in
            if live { Self.clearLive(&s) }
            s.lines = [:]
            s.overall = nil
        }
    }

    /// Prints a message above the live lines.
    func message(_ text: String, error: Bool = false) {
        if style == .quiet && !error { return }
        let live = style == .live
        state.withLockedValue { s in
            if live { Self.clearLive(&s) }
            Self.write(text.hasSuffix("\n") ? text : text + "\n")
            if live { Self.redraw(&s, force: true) }
        }
    }

    /// Changes the state and redraws the live lines, both under the lock, so that what is on the
    /// screen and the count of drawn lines never disagree (a clear and a redraw from two threads
    /// cannot interleave their writes).
    private func draw(force: Bool, _ change: (inout DisplayState) -> Void) {
        let live = style == .live
        state.withLockedValue { s in
            change(&s)
            if live { Self.redraw(&s, force: force) }
        }
    }

    /// Erases the drawn live lines. The cursor is on the last live line: clear it, then each line
    /// above, ending at the top one's start.
    private static func clearLive(_ s: inout DisplayState) {
        let drawn = s.drawnLines
        s.drawnLines = 0
        if drawn > 0 { write("\r\u{1B}[2K" + String(repeating: "\u{1B}[1A\u{1B}[2K", count: drawn - 1)) }
    }

    private static func redraw(_ s: inout DisplayState, force: Bool) {
        let now = ContinuousClock.now
        if !force, let last = s.lastDraw, now - last < .milliseconds(100) { return }
        s.lastDraw = now
        let lines = s.lines.keys.sorted().compactMap { s.lines[$0] }.map(render) + (s.overall.map { [$0] } ?? [])
        let previous = s.drawnLines
        s.drawnLines = lines.count
        let up = previous > 1 ? String(repeating: "\u{1B}[1A", count: previous - 1) : ""
        write((previous > 0 ? up + "\r" : "") + lines.map { "\u{1B}[2K" + $0 }.joined(separator: "\n"))
    }

    private static func render(_ line: Line) -> String {
        let width = 24
        let bar = ProgressBar.bar(line.fraction, width: width)
        let percent = String(ProgressBar.percent(line.fraction)).leftPad(3)
        let name = line.name.count > 28 ? "…" + line.name.suffix(27) : line.name
        return "\(name) \(bar) \(percent)% \(line.stage)\(line.path.isEmpty ? "" : " [\(line.path)]")"
    }

    private static func write(_ text: String) {
        guard !text.isEmpty else { return }
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
