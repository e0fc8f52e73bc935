/// Which way a spine's text runs in the photo.
public enum TextOrientation: String, Codable, Sendable, CaseIterable {
    /// Read top to bottom (the text turned 90° clockwise).
    case verticalTopToBottom = "vertical_tb"
    /// Read bottom to top (turned 270°).
    case verticalBottomToTop = "vertical_bt"
    /// Horizontal lines (across a wide standing spine, or along a lying book).
    case horizontal
}
