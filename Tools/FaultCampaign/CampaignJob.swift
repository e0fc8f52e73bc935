/// One job of a campaign: which image goes through which fault.
public struct CampaignJob: Sendable, Codable, Equatable {
    /// 1-based position in the campaign.
    public var number: Int
    /// Path of the image scanned.
    public var image: String
    public var fault: InjectedFault
}
