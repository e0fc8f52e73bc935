import Synchronization

/// Thread time spent in each stage of reading a photo's titles, summed over the reading threads, for the stage
/// timing benchmark (`Benchmarks/reading-stages.sh`): a `ShelfReader` given one adds to it as it reads, and
/// `take()` hands the sums over and starts again. Scans in the service are given none.
package final class ReadingStageClock: Sendable {
    /// A stage of reading titles.
    package enum Stage: String, CaseIterable, Sendable {
        /// The spine recognizer reading each spine's strips (Tesseract in combined mode).
        case spines = "read_spines"
        /// PP-OCR reading the whole photo's text lines (`PhotoLineReader`) and giving titles from them.
        case photoLines = "photo_lines"
        /// The photo read whole as a stack of lying books (`StackReader`).
        case stack = "read_stack"
        /// The learned title decision over each spine's candidates (`TitleChoice`).
        case decision = "decide"
    }

    private let sums = Mutex<[Stage: Duration]>([:])

    package init() {}

    /// Adds `duration` to `stage`.
    package func add(_ duration: Duration, to stage: Stage) {
        sums.withLock { $0[stage, default: .zero] += duration }
    }

    /// Runs `body`, adding the time it took to `stage`.
    package func timing<T, E: Error>(_ stage: Stage, _ body: () throws(E) -> T) throws(E) -> T {
        let clock = ContinuousClock()
        let start = clock.now
        defer { add(clock.now - start, to: stage) }
        return try body()
    }

    /// The milliseconds of each stage since the last call, every stage listed (0 when it did not run).
    package func take() -> [Stage: Double] {
        let taken = sums.withLock { sums in
            defer { sums = [:] }
            return sums
        }
        var out: [Stage: Double] = [:]
        for stage in Stage.allCases {
            let d = taken[stage] ?? .zero
            out[stage] = Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15
        }
        return out
    }
}

extension Optional where Wrapped == ReadingStageClock {
    /// Runs `body`, adding its time to `stage` when there is a clock.
    package func timing<T, E: Error>(_ stage: ReadingStageClock.Stage, _ body: () throws(E) -> T) throws(E) -> T {
        guard let clock = self else { return try body() }
        return try clock.timing(stage, body)
    }
}
