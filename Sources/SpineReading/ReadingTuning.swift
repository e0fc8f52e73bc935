/// The reader's tunables, defined once.
/// How each measured value was chosen: BENCHMARKS.md, "Reading tunables: how each value was chosen".
package struct ReadingTuning: Sendable, Hashable {
    /// Output pixels across the spine for readings along it (lettering lands at ~8–25 px x-height);
    /// measured best on the generated set for exact titles, and a smaller strip reads faster.
    package var alongStripHeight = 80.0
    /// A wide spine's strip along it is never shrunk below this scale (of the photo as decoded for
    /// reading), so its lettering stays legible; measured on the generated set (BENCHMARKS.md).
    package var minimumAlongScale = 0.8
    /// Strips along the spine are first read in Tesseract's sparse-text layout, block by block (see
    /// `SpineReader.firstLayout`); false reads them as one block, as strips across are.
    package var sparseTextAlong = true
    /// Output pixels across a wide spine read across (its smaller horizontal lettering).
    package var acrossStripWidth = 200.0
    /// Never enlarge a crop more than this.
    package var maximumUpscale = 4.0
    /// Fraction cut from each long edge (edge shading, neighbours) when reading along / across.
    package var alongTrim = 0.06
    package var acrossTrim = 0.03
    /// A standing spine is also read across when at least this wide relative to its length, and in pixels.
    package var acrossMinimumWidthRatio = 0.12
    package var acrossMinimumWidthPixels = 24.0
    /// A strip whose sharpest edges are this wide (`StripPreparer.edgeWidth`, in photo pixels: strip
    /// pixels over the enlargement) counts as blurred and is deblurred before it is read.
    package var blurredEdgeWidth = 3.5
    /// A blurred strip is deconvolved (`StripDeblurrer`, Richardson–Lucy) for a Gaussian of this many
    /// times its edge width (strip pixels; a Gaussian's edge measures about 2.5 σ), over `deblurRounds`
    /// rounds, on the strip shrunk until that Gaussian is at most `deblurFinestSigma` wide; all three
    /// chosen on the generated set, where deconvolution read more titles than an unsharp mask.
    package var deblurSigmaPerEdgeWidth = 0.4
    package var deblurRounds = 15
    package var deblurFinestSigma = 1.3
    /// A crisp strip (not deblurred) whose grain is at least this fraction of its contrast
    /// (`StripPreparer.grain`, measured about one photo pixel apart) is prepared and then made black and
    /// white at `grainyStripThreshold` (0–255 of the prepared strip: ink 0, background 255) instead of being
    /// left to Tesseract's Otsu threshold, so grain is not read as lettering; both chosen on the generated set.
    package var grainyStrip = 0.015
    package var grainyStripThreshold: UInt8 = 100
    /// A deblurred strip as grainy is made black and white at this level instead (deconvolution sharpens
    /// the grain with the lettering); chosen on the generated set, balancing exact titles and precision.
    package var grainyDeblurredThreshold: UInt8 = 60
    /// Unused since issue 57 removed the smoothed second look (`docs/log/reading-tunables.md`). Kept because this
    /// struct's layout without them makes the Swift 6.3.1 debug build of the tests crash copying an engine's
    /// configuration (`swift_retain` in `outlined copy of TitleReading`, RealPhotoTests, 4 runs of 4).
    package var smoothedEdgeWidth = 2.5
    package var smoothingRadius = 1.0
    /// A reading scoring this (0–100) and giving a title ends the search over directions (one that may
    /// be capitals upside down, `SpineReader.mayBeTurnedOver`, is first checked the other way round).
    package var confidentEnough = 80.0
    /// Added to a direction's score (0–100) for each English function word it read, up to two; breaks
    /// near-ties between a reading and its upside-down twin.
    package var functionWordBonus = 8.0
    /// Below this (0–1) a spine gets no title: a wrong title costs more than a missing one (and up to
    /// `sureTitleConfidence` only a confirmed one); chosen on the generated set, exact titles against
    /// precision.
    package var minimumTitleConfidence = 0.7
    /// With a recognizer whose confidences do not tell misread lettering (PP-OCR), the share of a title's
    /// words the language's word list must know (`TesseractLexicon`) for it to be given.
    package var minimumKnownWords = 0.5
    /// A line of the whole photo (`LineTitles`) gives a title only when it has at least `lineTitleWords` words
    /// and `lineTitleLetters` letters, and this share of its words is in the word list. Chosen on both sets for
    /// PP-OCR's second reading of a spine (docs/log/real-photos.md, "Real photos, third step": all of two or more
    /// words kept generated precision nearest Tesseract's own); that reading is gone (issue 57), the lines keep them.
    package var lineTitleKnownWords = 1.0
    package var lineTitleWords = 2
    package var lineTitleLetters = 4
    /// A line of the whole photo (`LineTitles`) gives a title only when PP-OCR read it with at least this
    /// confidence (0–1), and with the words above (`lineTitleWords`, `lineTitleLetters`, `lineTitleKnownWords`).
    package var lineTitleConfidence = 0.8
    /// Below this (0–1) the second group is not given as the author.
    package var minimumAuthorConfidence = 0.85
    /// A title read with less confidence (0–1) than this is only given when another reading, of a
    /// strip sampled at one of `confirmingScales` times the scale (tried in turn), gives the same title;
    /// two of those readings that agree on another title give it instead (`TitleVote`). Both chosen on
    /// the generated set.
    package var sureTitleConfidence = 0.9
    package var confirmingScales = [0.8, 1.5, 0.65]
    /// A sure title whose group has a word read below this (0–100) is read at `confirmingScales` too:
    /// never withheld, but replaced when two of those readings agree on another title (`TitleVote.Stake`);
    /// chosen on the generated set, weighing titles against time.
    package var checkedWordConfidence = 90.0
    /// A title of fewer letters than this needs `shortTitleConfidence` (0–1) instead.
    package var shortTitleLetters = 5
    package var shortTitleConfidence = 0.95
    /// When no title was read, the reading scored at least `enlargedScore` (0–100: smudges read as
    /// letters are not enlarged) and its largest lettering is smaller than `smallLettering` (cap height,
    /// strip pixels), the strip is read again enlarged to `wantedLettering`, at most `maximumEnlargement`
    /// times; `smallLettering` and `enlargedScore` were chosen on the generated set.
    package var smallLettering = 17.0
    package var wantedLettering = 24.0
    package var maximumEnlargement = 2.0
    package var enlargedScore = 50.0
    /// Unreadable lettering this much larger than the best group's means the title was not read.
    package var unreadLargerRatio = 1.2
    /// Words below this confidence (0–100) stay out of `text`.
    package var minimumWordConfidence = 30.0

    package init() {}
}
