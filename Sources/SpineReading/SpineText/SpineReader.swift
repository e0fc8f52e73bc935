import ImageKit
import ScanProtocol

/// Reads one spine: crops it along its own axis in every plausible direction, prepares each strip, lets
/// the recognizer (Tesseract or PP-OCR) read it, keeps the most confident reading and splits it into title and author.
struct SpineReader: Sendable {
    let tuning: ReadingTuning

    /// One direction's reading.
    private struct Reading {
        var direction: ReadingDirection
        /// The page layout the strip was read with (Tesseract's; PP-OCR finds its own lines).
        var layout: StripLayout
        /// The strip's scale over the one the spine's width asks for.
        var scaleFactor: Double
        var words: [RecognisedWord]
        var groups: [TextGrouper.Group]
        var score: Double
        /// Width and height of the strip Tesseract read, without the white border.
        var stripWidth: Int
        var stripHeight: Int
        /// The word list its title is checked against (the recognizer's; nil for Tesseract).
        var lexicon: TesseractLexicon?
    }

    /// The directions worth trying for a spine of this shape, most likely first.
    func directions(_ frame: SpineFrame) -> [ReadingDirection] {
        if frame.isHorizontal { return [.alongForward, .alongBackward] }
        var out: [ReadingDirection] = [.alongForward, .alongBackward]
        if frame.width >= tuning.acrossMinimumWidthRatio * frame.length, frame.width >= tuning.acrossMinimumWidthPixels {
            out.append(.across)
        }
        return out
    }

    /// Reads the spine; `isCancelled` is polled between directions (a reading returns `.unread` then).
    func read(_ photo: ReadingPhoto, frame: SpineFrame, engine: any StripRecognizer, isCancelled: () -> Bool) -> SpineText {
        var best: Reading?
        var strips: [ReadingDirection: PreparedStrip] = [:]
        for direction in directions(frame) {
            if isCancelled() { return .unread }
            // The backward strip is the forward one turned over (the same samples, a half-turn): it is
            // not sampled and prepared again.
            let strip = direction == .alongBackward ? strips[.alongForward]?.turnedOver : prepared(photo, frame: frame, direction: direction)
            guard let strip else { continue }
            strips[direction] = strip
            let reading = recognise(strip, direction: direction, engine: engine)
            if rank(reading) > best.map(rank) ?? 0 { best = reading }
            // A confident reading that gives no title (a lone word among larger smudges: upside-down
            // lettering often reads so) does not end the search. Capitals turned over are still letters
            // (THE HOUSE reads "ASNOH AHL" at 87): a confident reading that may be that is checked the
            // other way round before it is believed.
            if let b = best, b.score >= tuning.confidentEnough, result(b, frame: frame).title != nil,
                !(direction == .alongForward && mayBeTurnedOver(b))
            {
                break
            }
        }
        // Nothing legible in any direction. (Reading the strips again smoothed, in case a blurred photo's grain
        // had been read instead of its lettering, cost a third of Tesseract's time and gained nothing held out:
        // removed in issue 57, BENCHMARKS "Real photos: time per stage".)
        guard var best else { return .unread }
        var text = result(best, frame: frame)
        // Small lettering on a wide spine: the strip's scale follows the spine's width, not the letters'.
        if ReadingRule.enlargedLook.isOn, text.title == nil, best.score >= tuning.enlargedScore, let group = best.groups.first, group.height < tuning.smallLettering {
            let factor = min(tuning.maximumEnlargement, tuning.wantedLettering / max(1, group.height))
            if isCancelled() { return .unread }
            if let strip = prepared(photo, frame: frame, direction: best.direction, scaleFactor: factor) {
                let larger = recognise(strip, direction: best.direction, engine: engine, scaleFactor: factor)
                let largerText = result(larger, frame: frame)
                if largerText.title != nil {
                    best = larger
                    text = largerText
                }
            }
        }
        // Part of a title ("OF THE DOVE", "THE THEORY OF"): one layout lost the rest of it (one block ran
        // its other line into the author beside it; the sparse layout dropped a short word). The strip is
        // read again in the other layout; that title counts only when it holds the part read first (not
        // a neighbouring group that lost the part: "Federalist Papers").
        if ReadingRule.otherLayout.isOn, text.title == nil, let group = best.groups.first, TextGrouper.isIncompleteTitle(Self.clean(group.text)),
            let strip = strips[best.direction], engine.distinguishesLayouts
        {
            if isCancelled() { return .unread }
            let other: StripLayout = best.layout == .sparseText ? .singleBlock : .sparseText
            if let again = readAgain(strip, of: best, in: other, frame: frame, engine: engine, taking: { Self.contains($0, part: group.text) }) {
                (best, text) = again
            }
        }
        // A title the sparse-text layout gave that is not sure (one word, or to be confirmed) may have lost a
        // short word or its other line ("Side of Paradise", "THE SECRET" without AGENT): one block of the same
        // strip reads again, and a longer title that holds it in a row takes its place.
        if ReadingRule.otherLayout.isOn, let title = text.title, best.layout == .sparseText, best.scaleFactor == 1,
            text.confidence < tuning.sureTitleConfidence || !title.contains(" "), let strip = strips[best.direction],
            engine.distinguishesLayouts
        {
            if isCancelled() { return .unread }
            let longer = { (other: String) in Self.letters(other).count > Self.letters(title).count && Self.contains(other, part: title) }
            if let again = readAgain(strip, of: best, in: .singleBlock, frame: frame, engine: engine, taking: longer) {
                (best, text) = again
            }
        }
        // A title read with middling confidence is only given when readings of
        // the strip sampled at other scales agree (`TitleVote`): one gives the same title, or two give the
        // same other title. The scales are tried in turn until a title stands. A sure title with a weak
        // word goes through the same readings but is never withheld.
        guard text.title != nil else { return text }
        let stake = TitleVote.stake(
            confidence: text.confidence, wordConfidences: best.groups.first?.words.map(\.confidence) ?? [],
            tuning: tuning)
        if stake == .none || !ReadingRule.titleVote.isOn { return text }
        var vote = TitleVote(first: text)
        for confirmingScale in tuning.confirmingScales {
            if isCancelled() { return .unread }
            let again = prepared(
                photo, frame: frame, direction: best.direction, scaleFactor: best.scaleFactor * confirmingScale)
                .map { recognise($0, direction: best.direction, engine: engine, layout: best.layout) }
            if let again, let standing = vote.add(result(again, frame: frame)) { return standing }
        }
        if stake == .replaceable { return text }
        return SpineText(title: nil, author: nil, text: text.text, confidence: text.confidence, orientation: text.orientation)
    }

    /// `strip` (the one `reading` read) read again in `layout`, with what it gives, when `taking` accepts
    /// the title it gives; nil otherwise.
    private func readAgain(
        _ strip: PreparedStrip, of reading: Reading, in layout: StripLayout, frame: SpineFrame, engine: any StripRecognizer,
        taking: (String) -> Bool
    ) -> (Reading, SpineText)? {
        let again = recognise(strip, direction: reading.direction, engine: engine, layout: layout)
        let text = result(again, frame: frame)
        guard let title = text.title, taking(title) else { return nil }
        return (again, text)
    }

    /// A reading's score plus `functionWordBonus` for each of up to two English function words in it
    /// ("of", "the", "and"…): text the right way up has them, text upside down almost never.
    private func rank(_ reading: Reading) -> Double {
        guard reading.score > 0 else { return 0 }
        return reading.score + tuning.functionWordBonus * Double(min(2, functionWords(reading)))
    }

    /// How many English function words ("of", "the", "and"…) the reading has among its kept words.
    private func functionWords(_ reading: Reading) -> Int {
        reading.words.filter {
            $0.confidence >= tuning.minimumWordConfidence && $0.text.count >= 2 && TextGrouper.connectives.contains(TextGrouper.key($0.text))
        }.count
    }

    /// Whether the reading could be capitals upside down: its title group is three or more letters, all
    /// capitals, and it has no function word (text the right way up often does; turned over, almost never).
    private func mayBeTurnedOver(_ reading: Reading) -> Bool {
        let letters = reading.groups.first?.text.filter(\.isLetter) ?? ""
        return letters.count >= 3 && letters.allSatisfy(\.isUppercase) && functionWords(reading) == 0
    }

    /// A strip ready for Tesseract: the prepared pixels and the size of the sampled strip inside the border.
    private struct PreparedStrip {
        var image: GrayImage
        var width: Int
        var height: Int

        /// The same strip a half-turn round (a row-major image reversed): the strip read the other way.
        var turnedOver: PreparedStrip {
            var out = self
            out.image.pixels.reverse()
            return out
        }
    }

    /// The scale (strip pixels per photo pixel) of a strip of a spine `spineWidth` photo pixels wide read
    /// in `direction`: its width without the trimmed edges fitted to `alongStripHeight` (or, across,
    /// `acrossStripWidth`), at most `maximumUpscale`, and along the spine never below `minimumAlongScale`.
    func stripScale(spineWidth: Double, direction: ReadingDirection) -> Double {
        let across = direction == .across
        let textBudget = spineWidth * (1 - 2 * (across ? tuning.acrossTrim : tuning.alongTrim))
        let fitted = min(tuning.maximumUpscale, (across ? tuning.acrossStripWidth : tuning.alongStripHeight) / max(1, textBudget))
        return across ? fitted : max(tuning.minimumAlongScale, fitted)
    }

    /// Samples the spine for `direction` at `scaleFactor` times the scale its lettering needs,
    /// deblurs it when blurred and prepares it for Tesseract.
    private func prepared(_ photo: ReadingPhoto, frame: SpineFrame, direction: ReadingDirection, scaleFactor: Double = 1) -> PreparedStrip? {
        let across = direction == .across
        let trim = across ? tuning.acrossTrim : tuning.alongTrim
        let scale = stripScale(spineWidth: frame.width, direction: direction) * scaleFactor
        guard let sampled = StripSampler.strip(photo, frame: frame, direction: direction, scale: scale, trim: trim) else { return nil }
        // Blurred lettering (soft edges, measured in photo pixels: an enlarged strip's edges are soft by
        // the enlargement alone) is deblurred (`StripDeblurrer`) for the Gaussian its edges show; crisp
        // lettering is read as sampled. The edges are measured once, only when asked (a pass over the strip).
        var measuredEdge: Double?
        func edgeWidth() -> Double {
            if let measuredEdge { return measuredEdge }
            let width = StripPreparer.edgeWidth(sampled)
            measuredEdge = width
            return width
        }
        let strip: GrayImage
        // The gray level below which a grainy strip's pixels become ink (nil: left to Tesseract's threshold).
        var inkThreshold: UInt8?
        func grainy() -> Bool { StripPreparer.grain(sampled, step: Int(scale.rounded(.up))) >= tuning.grainyStrip }
        if ReadingRule.deblur.isOn, edgeWidth() / max(1, scale) >= tuning.blurredEdgeWidth {
            strip = StripDeblurrer.deconvolved(
                sampled, sigma: tuning.deblurSigmaPerEdgeWidth * edgeWidth(), rounds: tuning.deblurRounds, finestSigma: tuning.deblurFinestSigma)
            if grainy() { inkThreshold = tuning.grainyDeblurredThreshold }
        } else {
            strip = sampled
            // Crisp lettering in a grainy photo: Tesseract's Otsu threshold falls into the spread-out
            // grain, thickens the soft strokes until letters merge, and leaves speckles that stretch its
            // text lines to the strip's height; nothing is read. A fixed threshold nearer the ink does not.
            if grainy() { inkThreshold = tuning.grainyStripThreshold }
        }
        guard var image = StripPreparer.prepare(strip) else { return nil }
        if let inkThreshold { image = StripPreparer.binarized(image, threshold: inkThreshold) }
        return PreparedStrip(image: image, width: strip.width, height: strip.height)
    }

    /// Tesseract's layout for a first reading in `direction`. Along the spine, sparse text: title,
    /// author and imprint lie on one text line there, often in three sizes, and read as one line
    /// the LSTM misreads them all ("Sister Carrie Theodore Dreiser" read "soe cane Peoare"); the sparse
    /// layout reads each block of lettering as a line of its own. Across a wide spine the lines are
    /// stacked, and one block reads them better. On the 40 photos (2026-11-27, twelfth session), against
    /// one block everywhere: exact titles 33.2 → 34.7 % (medium 48.3 → 51.5 %), precision 86.7 → 87.2 %,
    /// median time per photo 1.92 → 1.49 s; sparse text across too: 34.1 %; one block first and sparse
    /// text when it gave no title: 33.5 %, 1.86 s.
    func firstLayout(_ direction: ReadingDirection) -> StripLayout {
        direction == .across || !tuning.sparseTextAlong ? .singleBlock : .sparseText
    }

    /// Lets Tesseract read a prepared strip (in `layout`, or the direction's `firstLayout`) and scores the reading.
    private func recognise(
        _ strip: PreparedStrip, direction: ReadingDirection, engine: any StripRecognizer, layout chosenLayout: StripLayout? = nil,
        scaleFactor: Double = 1
    ) -> Reading {
        let layout = chosenLayout ?? firstLayout(direction)
        // A short "word" as tall as the strip is the spine's band or edge read as letters ("il", "be");
        // a word read twice over one place (`isRepeat`) is kept once.
        var words: [RecognisedWord] = []
        for word in engine.read(strip.image, layout: layout)
        where !(Double(word.height) >= 0.8 * Double(strip.height) && word.text.filter { $0.isLetter || $0.isNumber }.count <= 2)
            && !words.contains(where: word.isRepeat(of:))
        {
            words.append(word)
        }
        // PP-OCR's detector has already parted the lines: two of them side by side are never one group.
        let groups = TextGrouper.groups(words, wholeLines: !engine.distinguishesLayouts)
        let kept = groups.flatMap { g in g.words.filter { !g.rescued.contains($0) } }
        let letters = groups.reduce(0) { $0 + $1.alphanumerics }
        let score = TextGrouper.confidence(kept) * min(1, Double(letters) / 5)
        return Reading(
            direction: direction, layout: layout, scaleFactor: scaleFactor, words: words, groups: groups, score: score, stripWidth: strip.width,
            stripHeight: strip.height, lexicon: engine.lexicon)
    }

    private func result(_ reading: Reading, frame: SpineFrame) -> SpineText {
        let orientation: TextOrientation
        switch (frame.isHorizontal, reading.direction) {
        case (true, _), (false, .across): orientation = .horizontal
        case (false, .alongForward): orientation = .verticalTopToBottom
        case (false, .alongBackward): orientation = .verticalBottomToTop
        }
        // Rescued words as their group keeps them (stray marks trimmed), the others when confident enough.
        let rescued = reading.groups.flatMap(\.rescued)
        let all = reading.words.compactMap { w in
            rescued.first { $0.isSamePlace(as: w) } ?? (w.confidence >= tuning.minimumWordConfidence ? w : nil)
        }
            .sorted { $0.line != $1.line ? $0.line < $1.line : $0.left < $1.left }
        let text = all.isEmpty ? nil : all.map(\.text).joined(separator: " ")
        guard let titleGroup = reading.groups.first else {
            return SpineText(title: nil, author: nil, text: text, confidence: 0, orientation: text == nil ? nil : orientation)
        }
        let titleConfidence = titleGroup.confidence / 100
        // Larger lettering than the title's that could not be read with confidence: the real title
        // is probably there, and the group in hand is the author or the imprint.
        // Marks as tall as the strip or as long as it are the spine's edges, bands or texture, not lettering.
        let largerUnread = reading.words.contains {
            !TextGrouper.isWordLike($0) && $0.text.filter(\.isLetter).count >= 3 && $0.capHeight > titleGroup.height * tuning.unreadLargerRatio
                && Double($0.height) <= 0.8 * Double(reading.stripHeight) && Double($0.width) <= 0.5 * Double(reading.stripWidth)
        }
        // A short reading is as often a surname or a fragment as a title: it must be surer.
        let letters = titleGroup.text.filter(\.isLetter).count
        let needed = letters < tuning.shortTitleLetters ? tuning.shortTitleConfidence : tuning.minimumTitleConfidence
        // What is plainly part of a title (it ends with "of", it starts with "and") is not given as one.
        // An edition line or a name beside the title is not part of it (`TitleEvidence.trimmed`); an imprint,
        // a call number or an edition line alone is no title.
        let (cleaned, nameInTitle) = TitleEvidence.trimmed(Self.clean(titleGroup.text))
        let known = reading.lexicon.map { $0.knownShare(of: cleaned) >= tuning.minimumKnownWords } ?? true
        let title =
            titleConfidence >= needed && letters >= 2 && known && !largerUnread && !TextGrouper.isIncompleteTitle(cleaned)
                && !TitleEvidence.isNotATitle(cleaned) ? cleaned : nil
        var author: String?
        if title != nil, let second = reading.groups.dropFirst().first(where: { $0.alphanumerics >= 3 }),
            second.confidence / 100 >= tuning.minimumAuthorConfidence
        {
            author = Self.clean(second.text)
        }
        if title != nil, let nameInTitle, author == nil || !TitleEvidence.isPersonName(author ?? "") { author = nameInTitle }
        return SpineText(title: title, author: author, text: text, confidence: titleConfidence, orientation: orientation)
    }
}
