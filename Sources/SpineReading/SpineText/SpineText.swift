package import ScanProtocol

/// What the reader found on one spine.
package struct SpineText: Sendable, Hashable {
    /// The title; nil when nothing was read with enough confidence.
    package var title: String?
    /// The author, when a second text group was read with enough confidence.
    package var author: String?
    /// Everything read, in reading order (also below the title threshold); nil when nothing was read.
    package var text: String?
    /// Confidence of the title reading (of the best reading when there is no title), 0–1.
    package var confidence: Double
    /// Which way the text runs on the photo.
    package var orientation: TextOrientation?

    package init(title: String?, author: String?, text: String?, confidence: Double, orientation: TextOrientation?) {
        self.title = title
        self.author = author
        self.text = text
        self.confidence = confidence
        self.orientation = orientation
    }

    /// A spine with nothing read.
    package static let unread = SpineText(title: nil, author: nil, text: nil, confidence: 0, orientation: nil)
}
