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
