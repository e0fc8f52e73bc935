import ScanProtocol

/// The text of a progress bar and percentage for any fraction, however wild: NaN, negative, above 1
/// or huge values are clamped first, so drawing can never trap.
enum ProgressBar {
    /// `width` cells, the done part filled (`█`), the rest empty (`░`).
    static func bar(_ fraction: Double, width: Int) -> String {
        let cells = max(0, width)
        let filled = min(cells, Int((ProgressFraction.clamped(fraction) * Double(cells)).rounded(.down)))
        return String(repeating: "█", count: filled) + String(repeating: "░", count: cells - filled)
    }

    /// Whole percent, 0…100.
    static func percent(_ fraction: Double) -> Int {
        Int((ProgressFraction.clamped(fraction) * 100).rounded(.down))
    }

    /// Whole percent of `part` of `total` (an upload), 0…100; 0 when the total is unknown.
    static func percent(part: Int, of total: Int) -> Int {
        guard total > 0 else { return 0 }
        return percent(Double(part) / Double(total))
    }
}
