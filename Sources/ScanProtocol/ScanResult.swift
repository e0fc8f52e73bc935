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
    /// The recognizer that read the titles and its versions (as `/healthz` names it); absent when no
    /// title was read (reading off) or from a server that does not say.
    public var reader: OCREngineStatus?

    public init(
        imageWidth: Int, imageHeight: Int, workingWidth: Int, workingHeight: Int,
        rows: [ShelfRow], spines: [Spine], timings: [StageTiming], reader: OCREngineStatus? = nil
    ) {
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.workingWidth = workingWidth
        self.workingHeight = workingHeight
        self.rows = rows
        self.spines = spines
        self.timings = timings
        self.reader = reader
    }

    private enum CodingKeys: String, CodingKey { case imageWidth, imageHeight, workingWidth, workingHeight, rows, spines, timings, reader }

    /// Decodes a result; sizes are clamped to 0…`WireNumbers.maxCount` (the wire is not trusted), and
    /// so is everything inside it (see `WireNumbers`).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            imageWidth: WireNumbers.count(try c.decode(Int.self, forKey: .imageWidth)),
            imageHeight: WireNumbers.count(try c.decode(Int.self, forKey: .imageHeight)),
            workingWidth: WireNumbers.count(try c.decode(Int.self, forKey: .workingWidth)),
            workingHeight: WireNumbers.count(try c.decode(Int.self, forKey: .workingHeight)),
            rows: try c.decode([ShelfRow].self, forKey: .rows), spines: try c.decode([Spine].self, forKey: .spines),
            timings: try c.decode([StageTiming].self, forKey: .timings), reader: try? c.decodeIfPresent(OCREngineStatus.self, forKey: .reader))
    }
}
