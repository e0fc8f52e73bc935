import BookscanBase

/// The reconnect delay schedule: the first retry at once, then full jitter
/// rand(0, min(cap, base·2ⁿ)), reproducible from a seed.
package struct ReconnectBackoff: Sendable {
    package let base: Duration
    package let cap: Duration
    private var random: SplitMix64

    package init(base: Duration, cap: Duration, seed: UInt64) {
        self.base = base
        self.cap = cap
        self.random = SplitMix64(seed: seed)
    }

    /// The delay before reconnect attempt `attempt` (0-based): 0 for the first, jittered after.
    package mutating func delay(attempt: Int) -> Duration {
        guard attempt > 0 else { return .zero }
        let ceiling = min(cap.inSeconds, base.inSeconds * Double(1 << min(attempt, 30)))
        let unit = Double(random.next() >> 11) / Double(1 << 53)
        return .milliseconds(Int64((unit * ceiling * 1000).rounded()))
    }
}
