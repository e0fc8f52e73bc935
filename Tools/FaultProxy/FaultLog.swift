import NIOConcurrencyHelpers

/// Counts requests per kind and accepted upgrades, and remembers decisions.
final class FaultLog: Sendable {
    private struct State {
        var counts: [String: Int] = [:]
        var acceptedUpgrades = 0
        var entries: [(ProxiedRequest, ConnectionFault)] = []
    }

    private let state = NIOLockedValueBox(State())

    func next(method: String, path: String, isUpgrade: Bool, plan: FaultPlan) -> (ProxiedRequest, ConnectionFault) {
        let request: ProxiedRequest = state.withLockedValue { s in
            let kind = isUpgrade ? "upgrade" : method
            s.counts[kind, default: 0] += 1
            return ProxiedRequest(
                method: method, path: path, isUpgrade: isUpgrade, ordinal: s.counts[kind, default: 0],
                acceptedUpgradesBefore: s.acceptedUpgrades)
        }
        let fault = plan(request)
        state.withLockedValue { $0.entries.append((request, fault)) }
        return (request, fault)
    }

    /// The server answered an upgrade with 101.
    func upgradeAccepted() { state.withLockedValue { $0.acceptedUpgrades += 1 } }

    var acceptedUpgrades: Int { state.withLockedValue { $0.acceptedUpgrades } }
    var entries: [(ProxiedRequest, ConnectionFault)] { state.withLockedValue { $0.entries } }
}
