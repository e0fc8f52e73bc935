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
