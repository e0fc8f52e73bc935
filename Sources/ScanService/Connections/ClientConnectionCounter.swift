import NIOConcurrencyHelpers

/// Open connections per client address, so one address cannot hold more than `limit` of them.
final class ClientConnectionCounter: Sendable {
    let limit: Int
    private let counts = NIOLockedValueBox<[String: Int]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts one more connection from `address`, or returns false (and counts nothing) at the cap.
    func admit(_ address: String) -> Bool {
        counts.withLockedValue { counts in
            let open = counts[address, default: 0]
            guard open < limit else { return false }
            counts[address] = open + 1
            return true
        }
    }

    func release(_ address: String) {
        counts.withLockedValue { counts in
            let open = counts[address, default: 0] - 1
            counts[address] = open > 0 ? open : nil
        }
    }

    func openConnections(from address: String) -> Int {
        counts.withLockedValue { $0[address, default: 0] }
    }
}
