/// One book found by the scan engine: where it stands (box and outline), how sure the engine is,
/// and what was read on its spine.
public struct Spine: Codable, Sendable, Hashable {
    /// Index of the spine in the result, left to right within rows, rows top to bottom (book N is index N-1).
    public var index: Int
    /// Index of the shelf row the spine stands in.
    public var row: Int
    /// Axis-aligned box, normalised to the original image (the bounding box of `polygon`).
    public var box: NormalizedBox
    /// Detection confidence, 0…1.
    public var confidence: Double
    /// Dominant colour of the spine.
    public var color: RGBColor
    /// Pose of the book.
    public var pose: SpinePose
    /// The spine's outline, normalised to the original image, clockwise from the top-left corner: rotated for a
    /// leaning book, the (slightly sheared) quad of an upright or lying one. Results without it decode to `box`'s corners.
    public var polygon: NormalizedQuad
    /// The title read on the spine; nil when not read, or not read with enough confidence.
    public var title: String?
    /// The author read on the spine, when the spine shows one as a separate text group.
    public var author: String?
    /// Everything read on the spine, in reading order.
    public var text: String?
    /// Confidence of the reading, 0…1.
    public var textConfidence: Double?
    /// Which way the text runs.
    public var orientation: TextOrientation?
    /// Why the title is what it is: the stage that decided it (absent when no decision stage ran).
    public var titleTrace: TitleTrace?

    /// `polygon` defaults to the corners of `box`.
    public init(
        index: Int, row: Int, box: NormalizedBox, confidence: Double, color: RGBColor, pose: SpinePose,
        polygon: NormalizedQuad? = nil, title: String? = nil, author: String? = nil, text: String? = nil,
        textConfidence: Double? = nil, orientation: TextOrientation? = nil, titleTrace: TitleTrace? = nil
    ) {
        self.index = index
        self.row = row
        self.box = box
        self.confidence = confidence
        self.color = color
        self.pose = pose
        self.polygon = polygon ?? NormalizedQuad(box: box)
        self.title = title
        self.author = author
        self.text = text
        self.textConfidence = textConfidence
        self.orientation = orientation
        self.titleTrace = titleTrace
    }

    private enum CodingKeys: String, CodingKey {
        case index, row, box, confidence, color, pose, polygon, title, author, text, textConfidence, orientation, titleTrace
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            index: WireNumbers.count(try c.decode(Int.self, forKey: .index)), row: WireNumbers.count(try c.decode(Int.self, forKey: .row)),
            box: try c.decode(NormalizedBox.self, forKey: .box), confidence: WireNumbers.unit(try c.decode(Double.self, forKey: .confidence)),
            color: try c.decode(RGBColor.self, forKey: .color), pose: try c.decode(SpinePose.self, forKey: .pose),
            polygon: try c.decodeIfPresent(NormalizedQuad.self, forKey: .polygon),
            title: try c.decodeIfPresent(String.self, forKey: .title), author: try c.decodeIfPresent(String.self, forKey: .author),
            text: try c.decodeIfPresent(String.self, forKey: .text),
            textConfidence: try c.decodeIfPresent(Double.self, forKey: .textConfidence).map(WireNumbers.unit),
            orientation: try c.decodeIfPresent(TextOrientation.self, forKey: .orientation),
            titleTrace: try c.decodeIfPresent(TitleTrace.self, forKey: .titleTrace))
    }
}
