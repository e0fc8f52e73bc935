/// The first request of a connection, as the proxy saw it.
public struct ProxiedRequest: Sendable, Equatable {
    public var method: String
    public var path: String
    public var isUpgrade: Bool
    /// 1 for the first request of the same kind (upgrade, PUT, GET, …), 2 for the next, and so on.
    public var ordinal: Int
    /// Upgrades this proxy saw the server accept (101) before this request arrived. A plan can
    /// fault "the first socket that really opened" even when an earlier upgrade was refused.
    public var acceptedUpgradesBefore: Int

    /// The kind used for counting: `upgrade`, or the HTTP method.
    public var kind: String { isUpgrade ? "upgrade" : method }
}

/// Chooses a fault per connection.
public typealias FaultPlan = @Sendable (ProxiedRequest) -> ConnectionFault
