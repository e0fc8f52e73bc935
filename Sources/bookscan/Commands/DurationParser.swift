import ArgumentParser
import BookscanBase

/// A duration on the command line: `500ms`, `2s`, `15m`, `1h`, or a plain number of seconds.
/// Values that are negative, not finite or beyond what a Duration holds are refused, never trapped on.
struct CommandDuration: ExpressibleByArgument, Sendable, CustomStringConvertible {
    let duration: Duration
    let text: String

    init?(argument: String) {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        var number = Substring(argument)
        var scale = 1.0
        for (suffix, factor) in units where argument.hasSuffix(suffix) {
            number = argument.dropLast(suffix.count)
            scale = factor
            break
        }
        guard let value = Double(number), let duration = Duration.checkedSeconds(value * scale) else { return nil }
        self.duration = duration
        text = argument
    }

    /// A built-in default, written the way a user would type it (`2s`, `500ms`, `15m`).
    init(_ duration: Duration) {
        self.duration = duration
        let milliseconds = duration.wholeMilliseconds
        if milliseconds % 3_600_000 == 0, milliseconds > 0 {
            text = "\(milliseconds / 3_600_000)h"
        } else if milliseconds % 60_000 == 0, milliseconds > 0 {
            text = "\(milliseconds / 60_000)m"
        } else if milliseconds % 1000 == 0 {
            text = "\(milliseconds / 1000)s"
        } else {
            text = "\(milliseconds)ms"
        }
    }

    var description: String { text }
}
