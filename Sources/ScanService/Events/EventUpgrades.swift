import HTTPTypes
import HummingbirdWebSocket

/// The events routes' WebSocket upgrade decisions, as the guarded server channel asks them
/// (`GuardedServerChannel`): `EventSocket` in the product; `Faults/` wraps it in tests.
protocol EventUpgrades: Sendable {
    /// Decides an upgrade from the request head, with the handler of an accepted socket.
    func shouldUpgrade(_ head: HTTPRequest) async -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>>
    /// Whether an upgrade request for `uri` would be accepted, judged before the upgrade starts (`FirstRequestGate`).
    func admitsUpgrade(uri: String, authorization: String?) -> Bool
}
