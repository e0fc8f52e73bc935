/// Numbers from the wire made safe to compute with: whatever a hostile or buggy server sends, a
/// decoded result holds coordinates and confidences in 0…1 and counts in 0…`maxCount`, so no
/// client arithmetic on them (pixel boxes, `index + 1`, `Int(x.rounded())`) can overflow or trap.
/// Values a real service sends are unchanged.
public enum WireNumbers {
    /// The largest index, count or pixel size a decoded result keeps (far beyond any real photo).
    public static let maxCount = Int(Int32.max)

    /// A normalised coordinate, size or confidence clamped to 0…1 (NaN counts as 0).
    public static func unit(_ value: Double) -> Double { ProgressFraction.clamped(value) }

    /// An index, count or pixel size clamped to 0…`maxCount`.
    public static func count(_ value: Int) -> Int { min(maxCount, max(0, value)) }

    /// A duration in milliseconds: finite and not negative (NaN counts as 0).
    public static func milliseconds(_ value: Double) -> Double {
        guard !value.isNaN else { return 0 }
        return min(Double(maxCount), max(0, value))
    }
}
