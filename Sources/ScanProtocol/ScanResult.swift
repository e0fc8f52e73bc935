/// A box in coordinates normalised to the original image: x and y of the top-left corner, width and
/// height, each a fraction of the original width or height (0…1).
public struct NormalizedBox: Codable, Sendable, Hashable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The box in pixels of an image of the given size: [x, y, w, h].
    public func pixels(width imageWidth: Int, height imageHeight: Int) -> [Double] {
        [x * Double(imageWidth), y * Double(imageHeight), width * Double(imageWidth), height * Double(imageHeight)]
    }
}

/// An sRGB colour.
public struct RGBColor: Codable, Sendable, Hashable {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8

    public init(r: UInt8, g: UInt8, b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// `#rrggbb`.
    public var hex: String {
        func two(_ v: UInt8) -> String {
            let s = String(v, radix: 16)
            return s.count == 1 ? "0" + s : s
        }
        return "#" + two(r) + two(g) + two(b)
    }
}

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
    /// The spine's outline, normalised to the original image, clockwise from the top-left corner: rotated for a
    /// leaning book, the (slightly sheared) quad of an upright or lying one. Results without it decode to `box`'s corners.
    public var polygon: NormalizedQuad

    /// `polygon` defaults to the corners of `box`.
    public init(
        index: Int, row: Int, box: NormalizedBox, confidence: Double, color: RGBColor, pose: SpinePose,
        polygon: NormalizedQuad? = nil
    ) {
        self.index = index
        self.row = row
        self.box = box
        self.confidence = confidence
        self.color = color
        self.pose = pose
        self.polygon = polygon ?? NormalizedQuad(box: box)
    }

    private enum CodingKeys: String, CodingKey {
        case index, row, box, confidence, color, pose, polygon
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let box = try c.decode(NormalizedBox.self, forKey: .box)
        self.init(
            index: try c.decode(Int.self, forKey: .index), row: try c.decode(Int.self, forKey: .row), box: box,
            confidence: try c.decode(Double.self, forKey: .confidence), color: try c.decode(RGBColor.self, forKey: .color),
            pose: try c.decode(SpinePose.self, forKey: .pose),
            polygon: try c.decodeIfPresent(NormalizedQuad.self, forKey: .polygon))
    }
}

/// How a book stands on the shelf.
public enum SpinePose: String, Codable, Sendable, CaseIterable {
    case upright
    case leaning
    case lying
}

/// A shelf row: the horizontal band books stand in.
public struct ShelfRow: Codable, Sendable, Hashable {
    public var index: Int
    public var box: NormalizedBox
    public var spineCount: Int

    public init(index: Int, box: NormalizedBox, spineCount: Int) {
        self.index = index
        self.box = box
        self.spineCount = spineCount
    }
}

/// Wall time one pipeline stage took.
public struct StageTiming: Codable, Sendable, Hashable {
    public var stage: ScanStage
    public var milliseconds: Double

    public init(stage: ScanStage, milliseconds: Double) {
        self.stage = stage
        self.milliseconds = milliseconds
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
