import Foundation

/// The paths of protocol v1, defined once for the server's router and the client's requests.
public enum Routes {
    public static let scansPrefix = "/v1/scans"
    public static let limits = "/v1/limits"
    public static let health = "/healthz"

    /// `/v1/scans/{jobId}`: PUT uploads, GET reads the snapshot, DELETE cancels.
    public static func scan(_ jobId: UUID) -> String { "\(scansPrefix)/\(jobId.uuidString.lowercased())" }

    /// `/v1/scans/{jobId}/events?after=N`: the WebSocket that replays events with seq > N, then streams.
    public static func events(_ jobId: UUID, after: Int) -> String { "\(scan(jobId))/events?after=\(after)" }
}

/// Header and query names of protocol v1.
public enum ProtocolNames {
    public static let accessTokenQuery = "access_token"
    public static let afterQuery = "after"
    public static let jpegMediaType = "image/jpeg"
}
