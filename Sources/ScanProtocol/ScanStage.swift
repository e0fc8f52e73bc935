/// The stage of the scan pipeline a job is in; progress within a stage is the event's fraction.
public enum ScanStage: String, Codable, Sendable, CaseIterable {
    case queued
    case decoding
    case findingRows = "finding_rows"
    case segmentingSpines = "segmenting_spines"
    case readingTitles = "reading_titles"
    case finishing
    case done

    /// Order of progress: the pipeline order of the cases (a job never goes back in it).
    public var progressRank: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    /// A short label for people.
    public var label: String {
        switch self {
        case .queued: "queued"
        case .decoding: "decoding"
        case .findingRows: "finding shelf rows"
        case .segmentingSpines: "segmenting spines"
        case .readingTitles: "reading titles"
        case .finishing: "finishing"
        case .done: "done"
        }
    }
}
