import ImageKit
import ScanProtocol

/// Reads a photo of a horizontal stack (books lying flat, their spines facing the camera, lettering across
/// the photo) text first: the recognizer reads the whole upright photo as sparse text, its words fall into
/// groups (`TextGrouper`), and each group that can be a title is one book, with the group beside it on the
/// same band of the photo as its author. No spine geometry is guessed: the text is the evidence.
struct StackReader: Sendable {
    let tuning: ReadingTuning

    /// The fewest letters a stack book's title has (shorter readings are stickers and fragments).
    static let minimumTitleLetters = 4
    /// How much of a smaller group's height must overlap a title's band for it to be that book's author.
    static let sameBandOverlap = 0.5
    /// The least share of the photo's width a stack book's lettering spans: a spine seen across a close
    /// photo of a stack runs over much of it; labels and stickers of an upright shelf read sideways do not.
    static let minimumWidthShare = 0.2
    /// How far above and below its lettering (in its letter heights) a stack book's box reaches.
    static let boxMargin = 0.6

    /// The books read on `photo` (upright gray pixels), top to bottom, boxes normalised to it.
    func read(_ photo: GrayImage, engine: any StripRecognizer) -> [StackBook] {
        let words = engine.read(photo, layout: .sparseText)
        let groups = TextGrouper.groups(words, wholeLines: !engine.distinguishesLayouts)
        var books: [(group: TextGrouper.Group, book: StackBook)] = []
        for group in groups {
            let top = group.words.map(\.top).min() ?? 0, bottom = group.words.map(\.bottom).max() ?? 0
            // A group on the band of a book already found is its author (or nothing more).
            if let i = books.firstIndex(where: { Self.overlap(top, bottom, $0.group) >= Self.sameBandOverlap * Double(max(1, bottom - top)) }) {
                if books[i].book.text.author == nil, group.confidence / 100 >= tuning.minimumAuthorConfidence, group.alphanumerics >= 3 {
                    books[i].book.text.author = SpineReader.clean(group.text)
                }
                continue
            }
            let left = group.words.map(\.left).min() ?? 0, right = group.words.map(\.right).max() ?? 0
            guard Double(right - left) >= Self.minimumWidthShare * Double(photo.width), let title = title(group, lexicon: engine.lexicon) else { continue }
            let margin = Self.boxMargin * group.height
            let w = Double(photo.width), h = Double(photo.height)
            let x0 = max(0, Double(left) - margin), y0 = max(0, Double(top) - margin)
            let x1 = min(w, Double(right) + margin), y1 = min(h, Double(bottom) + margin)
            let text = SpineText(
                title: title.title, author: title.name, text: group.text, confidence: group.confidence / 100, orientation: .horizontal)
            books.append((group, StackBook(box: NormalizedBox(x: x0 / w, y: y0 / h, width: (x1 - x0) / w, height: (y1 - y0) / h), text: text)))
        }
        return books.map(\.book).sorted { $0.box.y < $1.box.y }
    }

    /// The title `group` gives (and a name cut from it), or nil when it is not sure enough, too short,
    /// plainly part of a title or (with a word list) mostly not words.
    private func title(_ group: TextGrouper.Group, lexicon: TesseractLexicon?) -> (title: String, name: String?)? {
        let cleaned = SpineReader.clean(group.text)
        let trimmed = TitleEvidence.trimmed(cleaned)
        guard group.confidence / 100 >= tuning.minimumTitleConfidence, trimmed.title.filter(\.isLetter).count >= Self.minimumTitleLetters,
            !TextGrouper.isIncompleteTitle(trimmed.title), !TitleEvidence.isPersonName(trimmed.title),
            lexicon.map({ $0.knownShare(of: trimmed.title) >= tuning.minimumKnownWords }) ?? true
        else { return nil }
        return trimmed
    }

    /// Rows of `top...bottom` that `group`'s words cover.
    private static func overlap(_ top: Int, _ bottom: Int, _ group: TextGrouper.Group) -> Double {
        let gTop = group.words.map(\.top).min() ?? 0, gBottom = group.words.map(\.bottom).max() ?? 0
        return Double(max(0, min(bottom, gBottom) - max(top, gTop)))
    }
}
