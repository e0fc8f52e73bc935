/// Wall time one pipeline stage took.
public struct StageTiming: Codable, Sendable, Hashable {
    public var stage: ScanStage
    public var milliseconds: Double

    public init(stage: ScanStage, milliseconds: Double) {
        self.stage = stage
        self.milliseconds = milliseconds
    }
}
