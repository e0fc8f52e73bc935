import NIOConcurrencyHelpers

/// Open connections of the service, in all and per client address, so neither one address nor all of
/// them together can hold more than their cap (`perClientLimit`, `totalLimit`; nil: no cap).
final class ClientConnectionCounter: Sendable {
    /// Why a connection was refused.
    enum Refusal: Equatable, Sendable {
        /// Its address holds `perClientLimit` connections already.
        case clientFull(limit: Int)
        /// The service holds `totalLimit` connections already.
        case serviceFull(limit: Int)
    }

    private struct Counts {
        var total = 0
        var byAddress: [String: Int] = [:]
    }

    let perClientLimit: Int?
    let totalLimit: Int?
    private let counts = NIOLockedValueBox(Counts())

    init(perClientLimit: Int?, totalLimit: Int?) {
        self.perClientLimit = perClientLimit
        self.totalLimit = totalLimit
    }

    /// Counts one more connection from `address` (nil: an address that is not IP, counted in the
    /// total only), or returns why not (and counts nothing).
    func admit(_ address: String?) -> Refusal? {
        counts.withLockedValue { counts in
            if let totalLimit, counts.total >= totalLimit { return .serviceFull(limit: totalLimit) }
            if let address, let perClientLimit {
                let open = counts.byAddress[address, default: 0]
                guard open < perClientLimit else { return .clientFull(limit: perClientLimit) }
                counts.byAddress[address] = open + 1
            }
            counts.total += 1
            return nil
        }
    }

    /// Forgets one connection `admit` counted.
    func release(_ address: String?) {
        counts.withLockedValue { counts in
            counts.total -= 1
            guard let address, perClientLimit != nil else { return }
            let open = counts.byAddress[address, default: 0] - 1
            counts.byAddress[address] = open > 0 ? open : nil
        }
    }

    /// Every open connection counted.
    var openConnections: Int { counts.withLockedValue { $0.total } }
}
