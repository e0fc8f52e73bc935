/// How a book stands on the shelf.
public enum SpinePose: String, Codable, Sendable, CaseIterable {
    case upright
    case leaning
    case lying
}
