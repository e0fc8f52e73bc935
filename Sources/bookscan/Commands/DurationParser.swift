import ArgumentParser

/// A duration on the command line: `500ms`, `2s`, `15m`, `1h`, or a plain number of seconds.
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
        guard let value = Double(number), value >= 0, value.isFinite else { return nil }
        duration = .milliseconds(Int64((value * scale * 1000).rounded()))
        text = argument
    }

    init(duration: Duration, text: String) {
        self.duration = duration
        self.text = text
    }

    var description: String { text }
}
