/// What a successful scan found.
public struct ScanResult: Codable, Sendable, Hashable {
    /// Size of the image the server received, in pixels.
    public var imageWidth: Int
    public var imageHeight: Int
    /// Size the engine worked at after DCT scaling.
    public var workingWidth: Int
    public var workingHeight: Int
    public var rows: [ShelfRow]
    public var spines: [Spine]
    public var timings: [StageTiming]

    public init(
        imageWidth: Int, imageHeight: Int, workingWidth: Int, workingHeight: Int,
        rows: [ShelfRow], spines: [Spine], timings: [StageTiming]
    ) {
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.workingWidth = workingWidth
        self.workingHeight = workingHeight
        self.rows = rows
        self.spines = spines
        self.timings = timings
    }
}
