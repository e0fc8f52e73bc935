/// The first request of a connection, as the proxy saw it.
package struct ProxiedRequest: Sendable, Equatable {
    package var method: String
    package var path: String
    package var isUpgrade: Bool
    /// 1 for the first request of the same kind (upgrade, PUT, GET, …), 2 for the next, and so on.
    package var ordinal: Int
    /// Upgrades this proxy saw the server accept (101) before this request arrived. A plan can
    /// fault "the first socket that really opened" even when an earlier upgrade was refused.
    package var acceptedUpgradesBefore: Int

    /// The kind used for counting: `upgrade`, or the HTTP method.
    package var kind: String { isUpgrade ? "upgrade" : method }
}

/// Chooses a fault per connection.
package typealias FaultPlan = @Sendable (ProxiedRequest) -> ConnectionFault
