/// The lifecycle state of a scan job; the three terminal states end every job exactly once.
public enum JobState: String, Codable, Sendable, CaseIterable {
    case queued
    case running
    case succeeded
    case failed
    case canceled

    /// Whether no further event can follow this state.
    public var isTerminal: Bool {
        switch self {
        case .queued, .running: false
        case .succeeded, .failed, .canceled: true
        }
    }
}
