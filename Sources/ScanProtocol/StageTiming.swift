/// Wall time one pipeline stage took.
public struct StageTiming: Codable, Sendable, Hashable {
    public var stage: ScanStage
    public var milliseconds: Double

    public init(stage: ScanStage, milliseconds: Double) {
        self.stage = stage
        self.milliseconds = milliseconds
    }

    private enum CodingKeys: String, CodingKey { case stage, milliseconds }

    /// Decodes a timing; the milliseconds are clamped to be finite and not negative (the wire is not trusted).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            stage: try c.decode(ScanStage.self, forKey: .stage),
            milliseconds: WireNumbers.milliseconds(try c.decode(Double.self, forKey: .milliseconds)))
    }
}
