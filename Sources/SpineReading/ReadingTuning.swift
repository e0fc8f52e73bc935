/// The reader's tunables, defined once.
public struct ReadingTuning: Sendable, Hashable {
    /// Output pixels across the spine for readings along it (lettering lands at ~8–25 px x-height).
    /// 80 measured best on the 40 photos (exact titles 21.2 %, vs 20.5 % at 96, 20.3 % at 72 and 64),
    /// and Tesseract's time follows the strip's pixels (median 1.6 s per photo vs 2.1 s at 96).
    public var alongStripHeight = 80.0
    /// A wide spine's strip along it is never shrunk below this scale (of the photo as decoded for
    /// reading): at `alongStripHeight` alone a spine 200 px wide with two lines of 23 px capitals came out
    /// with 6 px letters. On the 40 photos (2026-11-26, ninth session): exact titles 29.8 → 30.0 % (easy
    /// 80.0 → 80.6 %), precision 87.7 → 87.9 %, mean time per photo +5 %; 0.8: 30.1 % (easy 80.0 %,
    /// precision 87.5 %); 1.0: 30.1 %, median time +17 %. Reading across, a floor of 0.8 changes nothing.
    /// With the sparse-text layout along the spine (2026-11-27, twelfth session), 0.6 → 0.8: exact 35.0 →
    /// 35.1 % (easy 84.4 → 86.3 %), precision 86.9 → 86.8 %, median time the same, mean +3 %.
    public var minimumAlongScale = 0.8
    /// Strips along the spine are first read in Tesseract's sparse-text layout, block by block (see
    /// `SpineReader.firstLayout`); false reads them as one block, as strips across are.
    public var sparseTextAlong = true
    /// Output pixels across a wide spine read across (its smaller horizontal lettering).
    public var acrossStripWidth = 200.0
    /// Never enlarge a crop more than this.
    public var maximumUpscale = 4.0
    /// Fraction cut from each long edge (edge shading, neighbours) when reading along / across.
    public var alongTrim = 0.06
    public var acrossTrim = 0.03
    /// A standing spine is also read across when at least this wide relative to its length, and in pixels.
    public var acrossMinimumWidthRatio = 0.12
    public var acrossMinimumWidthPixels = 24.0
    /// A strip whose sharpest edges are this wide (`StripPreparer.edgeWidth`, in photo pixels: strip
    /// pixels over the enlargement) counts as blurred and is deblurred before it is read.
    public var blurredEdgeWidth = 3.5
    /// A blurred strip is deconvolved (`StripDeblurrer`, Richardson–Lucy) for a Gaussian of this many
    /// times its edge width (strip pixels; a Gaussian's edge measures about 2.5 σ), over `deblurRounds`
    /// rounds, on the strip shrunk until that Gaussian is at most `deblurFinestSigma` wide. On the 40
    /// photos (2026-11-26, eighth session), against the unsharp mask it replaces (box radius 3, strength
    /// 2, only for strips enlarged at most 1.25× and with little grain): exact titles 28.4 → 29.1 % (hard
    /// 6.8 → 7.4 %, medium 41.9 → 43.0 %), precision 88.4 → 87.5 %; 0.3 σ per edge width: 28.7 %, 0.5:
    /// 28.6 %; 20 or 25 rounds: 29.1 %, 40 rounds: 28.5 % (the grain grows); from edges of 2.5 photo
    /// pixels instead of 3.5: 29.3 % but precision 86.5 %. At the strip's own resolution: 29.2 %, 7× the time.
    public var deblurSigmaPerEdgeWidth = 0.4
    public var deblurRounds = 15
    public var deblurFinestSigma = 1.3
    /// A crisp strip (not deblurred) whose grain is at least this fraction of its contrast
    /// (`StripPreparer.grain`, measured about one photo pixel apart) is prepared and then made black and
    /// white at `grainyStripThreshold` (0–255 of the prepared strip: ink 0, background 255) instead of
    /// being left to Tesseract's Otsu threshold. On the 40 photos (2026-11-26, ninth session): exact
    /// titles 29.1 → 29.8 % (hard 7.4 → 8.8 %, easy 80.3 → 80.0 %), precision 87.5 → 87.7 %, mean time
    /// per photo −33 % (grain read as lettering is gone); from 0.02: 29.7 % (easy 79.7 %); from 0.01: 29.2 %;
    /// thresholds 90 / 120: 29.4 / 29.5 %; deblurred strips made black and white at 100 too: 29.7 % (shelf_028
    /// 26 → 20 titles); every strip: 26.5 %. Tesseract's own Sauvola threshold for the grainy strips
    /// instead: 28.3 %; smoothing them instead (box radius ½ photo pixel): 29.4 %.
    public var grainyStrip = 0.015
    public var grainyStripThreshold: UInt8 = 100
    /// A deblurred strip as grainy is made black and white at this level instead (deconvolution sharpens
    /// the grain with the lettering). On the 40 photos (2026-11-26, ninth session), against leaving it to
    /// Tesseract: exact titles 30.0 % either way, precision 87.9 → 88.7 %, mean time per photo −7 %; at
    /// 45: 29.9 % and 89.0 %; at 80: 30.1 % and 87.6 %; at 100: 29.7 % (shelf_028 lost 6 of 26 titles).
    public var grainyDeblurredThreshold: UInt8 = 60
    /// A spine that gave no title is read once more smoothed (`SpineReader.smoothedLook`) when its
    /// strip's edges are this wide (photo pixels) or wider, over a box of about `smoothingRadius` photo
    /// pixels. On the 40 photos (2026-11-26, fifth session): exact titles 26.8 → 28.0 %, precision
    /// 88.1 → 87.4 % (857 → 902 titles), median time +7 %; from 2.0: 28.0 % and 87.3 %, slower; from
    /// 3.0: 27.7 %; radius 1.5: 27.4 %. Smoothing every strip first instead: 26.9 % (easy 80.3 → 75.9 %).
    public var smoothedEdgeWidth = 2.5
    public var smoothingRadius = 1.0
    /// A reading scoring this (0–100) and giving a title ends the search over directions (one that may
    /// be capitals upside down, `SpineReader.mayBeTurnedOver`, is first checked the other way round).
    public var confidentEnough = 80.0
    /// Added to a direction's score (0–100) for each English function word it read, up to two; breaks
    /// near-ties between a reading and its upside-down twin.
    public var functionWordBonus = 8.0
    /// Below this (0–1) a spine gets no title: a wrong title costs more than a missing one (and up to
    /// `sureTitleConfidence` only a confirmed one). On the 40 photos (2026-11-26, third session), exact /
    /// precision: 25.0 / 88.0 % from 0.80, 25.6 / 87.6 % from 0.75, 25.9 / 87.3 % from 0.70, 26.0 / 87.1 %
    /// from 0.65.
    public var minimumTitleConfidence = 0.7
    /// Below this (0–1) the second group is not given as the author.
    public var minimumAuthorConfidence = 0.85
    /// A title read with less confidence (0–1) than this is only given when another reading, of a
    /// strip sampled at one of `confirmingScales` times the scale (tried in turn), gives the same title.
    /// On the 40 photos (2026-11-26, second session), titles from 0.80 confirmed below 0.90: exact 24.4 %, precision 86.7 % (from 0.75:
    /// 25.0 / 86.2 %; from 0.85 unconfirmed: 24.6 / 82.4 %; a plain threshold of 0.88: 23.6 / 85.7 %). With
    /// titles from 0.85, confirming at 0.8 gives 23.4 / 86.5 %, at 1.25 23.8 / 86.2 % and 10 % more time.
    /// More readings when the second disagrees (2026-11-27, twelfth session). Reading along the spine in
    /// one block, against 0.8 alone (exact 32.1 %, precision 88.0 %): then 1.5× 33.2 / 86.7 %; then 1.25×
    /// 33.1 / 86.0 %; then 2× 33.1 / 86.4 % (median time +5 %); then 0.65× 32.8 / 87.5 %; then 1.5× and
    /// 0.65× 33.5 / 86.4 %. In the sparse-text layout: 0.8 alone 33.6 / 88.5 %, median 1.35 s; then 1.5×
    /// 34.7 / 87.2 %, 1.48 s; then 1.5× and 0.65× 35.0 / 86.9 %, 1.49 s.
    /// Two of those readings that agree on another title give it instead (`TitleVote`; 2026-11-27,
    /// thirteenth session): exact 35.3 → 36.2 %, precision 87.0 → 86.7 %, no more readings. A fourth
    /// scale then (1.25× / 2×): 36.7 / 85.3 % and 36.6 / 85.8 % (a scale near 1 repeats the misreading).
    public var sureTitleConfidence = 0.9
    public var confirmingScales = [0.8, 1.5, 0.65]
    /// A sure title whose group has a word read below this (0–100) is read at `confirmingScales` too:
    /// never withheld, but replaced when two of those readings agree on another title (`TitleVote.Stake`).
    /// On the 40 photos (2026-11-27, thirteenth session), after the vote above: exact 36.2 → 36.5 %,
    /// precision 86.7 → 87.3 %, median time per photo +5 %; below 93: 36.5 / 87.4 %, +14 %; every sure
    /// title: 36.8 / 88.1 %, +20 % (a sure title is nearly always confirmed, at the cost of a reading).
    public var checkedWordConfidence = 90.0
    /// A title of fewer letters than this needs `shortTitleConfidence` (0–1) instead.
    public var shortTitleLetters = 5
    public var shortTitleConfidence = 0.95
    /// When no title was read, the reading scored at least `enlargedScore` (0–100: smudges read as
    /// letters are not enlarged) and its largest lettering is smaller than `smallLettering` (cap height,
    /// strip pixels), the strip is read again enlarged to `wantedLettering`, at most `maximumEnlargement`
    /// times. On the 40 photos (2026-11-26, fourth session), exact titles 26.3 % (easy 79.4 %) without;
    /// 26.5 % (80.0 %) from 14 px; 26.6 % (80.0 %) from 17 px; 26.6 % from 20 px but one more wrong title;
    /// from 17 px with scores from 50: 26.5 % and mean time per photo +11 % instead of +31 %; from 65: 26.5 %, +2 %.
    public var smallLettering = 17.0
    public var wantedLettering = 24.0
    public var maximumEnlargement = 2.0
    public var enlargedScore = 50.0
    /// Unreadable lettering this much larger than the best group's means the title was not read.
    public var unreadLargerRatio = 1.2
    /// Words below this confidence (0–100) stay out of `text`.
    public var minimumWordConfidence = 30.0

    public init() {}
}
