extension TrackerRun {
    /// Whether the server has accepted the upload yet, and so which attempts began before the job existed.
    enum Upload: Sendable {
        case inFlight
        /// Accepted when the next connection number was `firstConnection`: sockets numbered below it
        /// began before the job existed.
        case accepted(firstConnection: Int)

        var isAccepted: Bool {
            switch self {
            case .inFlight: false
            case .accepted: true
            }
        }

        /// The server accepted the upload when the next attempt's number was `nextConnection`.
        mutating func accepted(nextConnection: Int) {
            self = .accepted(firstConnection: nextConnection)
        }

        /// Whether attempt `connection` began before the upload was accepted (the job may not have existed).
        func startedBeforeAccept(_ connection: Int) -> Bool {
            switch self {
            case .inFlight: true
            case .accepted(let firstConnection): connection < firstConnection
            }
        }
    }
}
