/// One book spine found by the scan engine.
public struct Spine: Codable, Sendable, Hashable {
    /// Index of the spine in the result, left to right within rows, rows top to bottom.
    public var index: Int
    /// Index of the shelf row the spine stands in.
    public var row: Int
    /// Axis-aligned box, normalised to the original image.
    public var box: NormalizedBox
    /// Detection confidence, 0…1.
    public var confidence: Double
    /// Dominant colour of the spine.
    public var color: RGBColor
    /// Pose of the book.
    public var pose: SpinePose
    /// What was read on the spine (nil fields: not read, or not read with enough confidence).
    public var title: String?
    public var author: String?
    /// Everything read on the spine, in reading order.
    public var text: String?
    /// Confidence of the reading, 0…1.
    public var textConfidence: Double?
    /// Which way the text runs.
    public var orientation: TextOrientation?

    public init(
        index: Int, row: Int, box: NormalizedBox, confidence: Double, color: RGBColor, pose: SpinePose,
        title: String? = nil, author: String? = nil, text: String? = nil, textConfidence: Double? = nil,
        orientation: TextOrientation? = nil
    ) {
        self.index = index
        self.row = row
        self.box = box
        self.confidence = confidence
        self.color = color
        self.pose = pose
        self.title = title
        self.author = author
        self.text = text
        self.textConfidence = textConfidence
        self.orientation = orientation
    }
}

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
