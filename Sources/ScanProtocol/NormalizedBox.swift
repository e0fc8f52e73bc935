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

    private enum CodingKeys: String, CodingKey { case x, y, width, height }

    /// Decodes a box; each number is clamped to 0…1 (the wire is not trusted).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            x: WireNumbers.unit(try c.decode(Double.self, forKey: .x)), y: WireNumbers.unit(try c.decode(Double.self, forKey: .y)),
            width: WireNumbers.unit(try c.decode(Double.self, forKey: .width)),
            height: WireNumbers.unit(try c.decode(Double.self, forKey: .height)))
    }

    /// The box in pixels of an image of the given size: [x, y, w, h].
    public func pixels(width imageWidth: Int, height imageHeight: Int) -> [Double] {
        [x * Double(imageWidth), y * Double(imageHeight), width * Double(imageWidth), height * Double(imageHeight)]
    }
}
