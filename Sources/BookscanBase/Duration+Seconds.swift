extension Duration {
    /// The duration in seconds, as a floating-point number.
    package var inSeconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }

    /// The duration in milliseconds, as a floating-point number.
    package var inMilliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }

    /// The duration in whole nanoseconds, saturating at `Int64.max` (for APIs that take nanoseconds).
    package var wholeNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = product.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow2 ? (seconds < 0 ? .min : .max) : sum
    }

    /// The duration in whole milliseconds, saturating at `Int64.max`.
    package var wholeMilliseconds: Int64 { wholeNanoseconds / 1_000_000 }

    /// A duration of `seconds`, or nil when it is not finite, negative, or too large for a Duration.
    package static func checkedSeconds(_ seconds: Double) -> Duration? {
        guard seconds.isFinite, seconds >= 0, seconds < 9.2e9 else { return nil }
        return .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
