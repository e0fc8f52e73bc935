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

    private enum CodingKeys: String, CodingKey { case index, box, spineCount }

    /// Decodes a row; index and count are clamped to 0…`WireNumbers.maxCount` (the wire is not trusted).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            index: WireNumbers.count(try c.decode(Int.self, forKey: .index)), box: try c.decode(NormalizedBox.self, forKey: .box),
            spineCount: WireNumbers.count(try c.decode(Int.self, forKey: .spineCount)))
    }
}
