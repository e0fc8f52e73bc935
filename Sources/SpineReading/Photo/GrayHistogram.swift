/// Counts of each gray level (0–255) and the levels at given ranks, for stretching strips and
/// measuring ink.
struct GrayHistogram: Sendable {
    private(set) var counts = [Int](repeating: 0, count: 256)
    private(set) var total = 0

    init() {}

    init(_ pixels: [UInt8]) {
        for v in pixels { add(v) }
    }

    mutating func add(_ level: UInt8) {
        counts[Int(level)] += 1
        total += 1
    }

    /// The lowest level with more than `q` (0–1) of the counts at or below it.
    func percentile(_ q: Double) -> Int {
        let target = Int(Double(total) * q)
        var seen = 0
        for (value, count) in counts.enumerated() {
            seen += count
            if seen > target { return value }
        }
        return 255
    }
}
