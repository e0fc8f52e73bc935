import HTTPTypes
import HummingbirdWebSocket

/// Test seam: the events routes' upgrade decisions with injected misbehaviour. `responseDelay`: each
/// decision waits first (accepted upgrades never reach the router's `ResponseDelayMiddleware`);
/// `refuseUpgradeStatus`: no upgrade is admitted, so the request goes on as plain HTTP and
/// `RefusedEventsMiddleware` answers it; `silentSockets`: an accepted socket sends nothing and reads
/// nothing (so it answers no ping).
struct FaultyEventUpgrades: EventUpgrades {
    let base: any EventUpgrades
    let delay: Duration?
    let refusing: Bool
    let silent: Bool

    func shouldUpgrade(_ head: HTTPRequest) async -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        if let delay { try? await Task.sleep(for: delay) }
        if refusing { return .dontUpgrade }
        let decision = await base.shouldUpgrade(head)
        guard silent, case .upgrade(let headers, _) = decision else { return decision }
        return .upgrade(headers) { _, _, _ in try await Task.sleep(for: .seconds(3600)) }
    }

    func admitsUpgrade(uri: String, authorization: String?) -> Bool {
        !refusing && base.admitsUpgrade(uri: uri, authorization: authorization)
    }
}
