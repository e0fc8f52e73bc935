/// The lifecycle state of a scan job; the three terminal states end every job exactly once.
public enum JobState: String, Codable, Sendable, CaseIterable {
    case queued
    case running
    case succeeded
    case failed
    case canceled

    /// Order of progress: queued 0, running 1, any terminal state 2 (a job never goes back in it).
    public var progressRank: Int {
        switch self {
        case .queued: 0
        case .running: 1
        case .succeeded, .failed, .canceled: 2
        }
    }

    /// Whether no further event can follow this state.
    public var isTerminal: Bool {
        switch self {
        case .queued, .running: false
        case .succeeded, .failed, .canceled: true
        }
    }
}
