/// Why a campaign could not start (its jobs never ran).
package enum CampaignError: Error, Sendable, CustomStringConvertible {
    case noImages
    case unreadableImage(String, String)
    case baselineFailed(String, String)

    package var description: String {
        switch self {
        case .noImages: "no JPEG images to scan"
        case .unreadableImage(let path, let reason): "\(path): \(reason)"
        case .baselineFailed(let path, let reason): "\(path): the fault-free baseline scan did not succeed: \(reason)"
        }
    }
}
