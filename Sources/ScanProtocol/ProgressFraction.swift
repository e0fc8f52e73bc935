/// A progress fraction as the wire may carry it (any Double a hostile or buggy server sends) made safe
/// to show: not-a-number and negatives become 0, anything above 1 becomes 1.
public enum ProgressFraction {
    /// `value` clamped to 0…1; NaN counts as 0.
    public static func clamped(_ value: Double) -> Double {
        guard !value.isNaN else { return 0 }
        return min(1, max(0, value))
    }
}
