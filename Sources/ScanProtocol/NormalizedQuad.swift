/// A point in coordinates normalised to the original image: x and y as fractions of its width and height (0…1).
public struct NormalizedPoint: Codable, Sendable, Hashable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A four-corner polygon normalised to the original image, corners clockwise from the top-left one
/// (on the wire: `[[x, y], …]`, four points in that order).
public struct NormalizedQuad: Codable, Sendable, Hashable {
    public var topLeft: NormalizedPoint
    public var topRight: NormalizedPoint
    public var bottomRight: NormalizedPoint
    public var bottomLeft: NormalizedPoint

    public init(topLeft: NormalizedPoint, topRight: NormalizedPoint, bottomRight: NormalizedPoint, bottomLeft: NormalizedPoint) {
        self.topLeft = topLeft
        self.topRight = topRight
        self.bottomRight = bottomRight
        self.bottomLeft = bottomLeft
    }

    /// The corners of an axis-aligned box.
    public init(box: NormalizedBox) {
        self.init(
            topLeft: NormalizedPoint(x: box.x, y: box.y),
            topRight: NormalizedPoint(x: box.x + box.width, y: box.y),
            bottomRight: NormalizedPoint(x: box.x + box.width, y: box.y + box.height),
            bottomLeft: NormalizedPoint(x: box.x, y: box.y + box.height))
    }

    /// The corners in order: top-left, top-right, bottom-right, bottom-left.
    public var corners: [NormalizedPoint] { [topLeft, topRight, bottomRight, bottomLeft] }

    /// The smallest axis-aligned box around the corners.
    public var boundingBox: NormalizedBox {
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let x0 = xs.min() ?? 0, x1 = xs.max() ?? 0, y0 = ys.min() ?? 0, y1 = ys.max() ?? 0
        return NormalizedBox(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The corners in pixels of an image of the given size: [[x, y]] × 4.
    public func pixels(width imageWidth: Int, height imageHeight: Int) -> [[Double]] {
        corners.map { [$0.x * Double(imageWidth), $0.y * Double(imageHeight)] }
    }

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var points: [NormalizedPoint] = []
        while !container.isAtEnd {
            let pair = try container.decode([Double].self)
            guard pair.count == 2 else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "a polygon point is [x, y]")
            }
            // Clamped to 0…1: the wire is not trusted.
            points.append(NormalizedPoint(x: WireNumbers.unit(pair[0]), y: WireNumbers.unit(pair[1])))
        }
        guard points.count == 4 else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a polygon has 4 points, not \(points.count)")
        }
        self.init(topLeft: points[0], topRight: points[1], bottomRight: points[2], bottomLeft: points[3])
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for point in corners { try container.encode([point.x, point.y]) }
    }
}
