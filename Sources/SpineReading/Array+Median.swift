extension Array where Element == Double {
    /// The median of the values (the mean of the middle two of an even count); nil when there are none.
    package var median: Double? {
        guard !isEmpty else { return nil }
        let sorted = self.sorted()
        return (sorted[(count - 1) / 2] + sorted[count / 2]) / 2
    }
}
