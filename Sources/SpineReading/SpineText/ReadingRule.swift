import Foundation

/// The reading's rules that the reading lab can switch off one at a time, to measure what each gains on
/// photos it was not fitted to (the ablation table in BENCHMARKS.md; two rules that gained nothing there, the
/// imprint shape, the title's place order and, in issue 57, the smoothed second look, were removed). A rule switched off behaves as if it
/// never matched. The switch is read once per process from `BOOKSCAN_READING_RULES_OFF` (names separated by
/// commas); `EngineEval --without NAME` sets it. Scans never set it.
package enum ReadingRule: String, CaseIterable, Sendable {
    /// A line that starts with a Census given name and ends in a surname or no ordinary word (`PersonNames`) is a
    /// person's; off: only initials ("J. R. R. Tolkien") mark a name.
    case givenNames = "given_names"
    /// An edition line ("Second Edition") and what follows it, or a subtitle naming the kind of book
    /// ("A Novel"), end the title.
    case editionLines = "edition_lines"
    /// A person's name before or after the title is cut off it (and may be the author).
    case nameTrim = "name_trim"
    /// A photo whose spines gave almost no titles is read again as a stack of lying books.
    case stackReading = "stack_reading"
    /// A title read with middling confidence is given only when readings at other scales agree (`TitleVote`);
    /// off: it is given as read, without the readings that would confirm it.
    case titleVote = "title_vote"
    /// A box as wide as several books of its row, with lines side by side on it, is cut between them (`MergedSpineSplitter`);
    /// off: every box stays one book.
    case mergedSpineSplit = "merged_spine_split"
    /// A title read crop by crop is checked against the spine's own lines (`LineCheck`: a piece of the author's name,
    /// a misreading, a word no line reads give way); off: it stands as read.
    case lineCheck = "line_check"
    /// A strip is cut where its background changes (a label) and each piece stretched on its own
    /// (`StripPreparer.pieces`); off: the strip is stretched as one.
    case labelPieces = "label_pieces"
    /// A blurred strip is deconvolved before reading (`StripDeblurrer`); off: read as it is.
    case deblur = "deblur"
    /// A word's letter size is measured on the strip's ink as well as from Tesseract's boxes (`WordInk`); off: the
    /// boxes alone.
    case wordInk = "word_ink"
    /// Spines that one line of lettering crosses are joined into one book (`LetteringSpan`, ScanEngine's
    /// `LetteringJoiner`); off: none are joined.
    case letteringJoin = "lettering_join"
    /// Small lettering on a wide spine that gave no title is read again enlarged (`SpineReader`); off: not.
    case enlargedLook = "enlarged_look"
    /// A part of a title, or an unsure sparse-text title, is read again in the other page layout and a reading that
    /// holds it whole takes its place (`SpineReader.readAgain`); off: the first layout's reading stands.
    case otherLayout = "other_layout"
    /// A near-0-confidence word of a title's line joins the title when it is plainly a word of that line
    /// (`TextGrouper.rescue`); off: it is dropped with the noise.
    case wordRescue = "word_rescue"
    /// A spine with no line of two words or more that can be a title takes its one sure word of six letters
    /// (`LineTitles.oneWordTitle`); off: it stays untitled.
    case oneWordLine = "one_word_line"

    /// The rules switched off in this process.
    package static let switchedOff: Set<ReadingRule> = parse(ProcessInfo.processInfo.environment[environmentKey] ?? "")

    /// The environment variable that switches rules off.
    package static let environmentKey = "BOOKSCAN_READING_RULES_OFF"

    /// Whether the rule applies in this process.
    package var isOn: Bool { !Self.switchedOff.contains(self) }

    /// The rules named in `list` (comma separated; unknown names are ignored).
    package static func parse(_ list: String) -> Set<ReadingRule> {
        Set(list.split(separator: ",").compactMap { ReadingRule(rawValue: $0.trimmingCharacters(in: .whitespaces)) })
    }
}
