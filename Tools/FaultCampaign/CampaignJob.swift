/// One job of a campaign: which image goes through which fault.
package struct CampaignJob: Sendable, Codable, Equatable {
    /// 1-based position in the campaign.
    package var number: Int
    /// Path of the image scanned.
    package var image: String
    package var fault: InjectedFault
}
