import Foundation

/// The paths of protocol v1, defined once: the patterns the server's router registers, the paths
/// the client requests, and the parser the server uses on raw request paths (upgrade decisions).
public enum Routes {
    /// Every versioned route starts with this; the bearer token guards all of them.
    public static let versionPrefix = "/v1/"
    public static let scansPrefix = "/v1/scans"
    public static let limits = "/v1/limits"
    public static let health = "/healthz"
    /// The service's numbers in the Prometheus text format (behind the token when one is set).
    public static let metrics = "/metrics"
    /// The OpenAPI 3.1 document of protocol v1.
    public static let openAPI = "/openapi.yaml"
    /// The multiplexed events route: one WebSocket or event stream for many jobs (`?jobs=ID,ID:N,…`).
    public static let multiplexedEvents = "/v1/events"
    /// Last path component of the events route.
    public static let eventsSuffix = "events"
    /// Name of the job id parameter in the router patterns.
    public static let jobIdParameter = "jobId"

    /// Router patterns (`:jobId` is the parameter `jobIdParameter`).
    public enum Pattern {
        /// `PUT` uploads, `GET` reads the snapshot, `DELETE` cancels.
        public static let scan = "\(Routes.scansPrefix)/:\(Routes.jobIdParameter)"
        /// The events WebSocket (and its plain-HTTP refusal).
        public static let events = "\(scan)/\(Routes.eventsSuffix)"
        /// The multiplexed events WebSocket / event stream (and its plain-HTTP refusal).
        public static let multiplexedEvents = Routes.multiplexedEvents
        public static let limits = Routes.limits
        public static let health = Routes.health
        public static let metrics = Routes.metrics
        public static let openAPI = Routes.openAPI
    }

    /// `/v1/scans/{jobId}`: PUT uploads, GET reads the snapshot, DELETE cancels.
    public static func scan(_ jobId: UUID) -> String { "\(scansPrefix)/\(jobId.uuidString.lowercased())" }

    /// The path a `PUT` uploads to: `/v1/scans/{jobId}`, or with `?continueAfter=N` when the client
    /// resubmits a job the server lost after showing events up to seq N: a job created by this PUT
    /// numbers its events from N + 1 (an existing job is unchanged), so the client's stream goes on.
    public static func upload(_ jobId: UUID, continuingAfter: Int) -> String {
        continuingAfter > 0 ? "\(scan(jobId))?\(ProtocolNames.continueAfterQuery)=\(continuingAfter)" : scan(jobId)
    }

    /// `/v1/scans/{jobId}/events?after=N`: the WebSocket that replays events with seq > N, then streams.
    public static func events(_ jobId: UUID, after: Int) -> String { "\(scan(jobId))/\(eventsSuffix)?\(ProtocolNames.afterQuery)=\(after)" }

    /// `/v1/events?jobs=ID,ID:N,…`: one subscription for many jobs, each replayed after its own seq;
    /// jobs are added and removed later with `subscribe` / `unsubscribe` messages.
    public static func multiplexedEvents(_ jobs: [JobCursor]) -> String {
        jobs.isEmpty ? multiplexedEvents : "\(multiplexedEvents)?\(ProtocolNames.jobsQuery)=\(JobCursor.query(jobs))"
    }

    /// Whether `path` (no query) is the multiplexed events route.
    public static func isMultiplexedEvents(_ path: some StringProtocol) -> Bool { path == multiplexedEvents }

    /// The job id text of an events path (`/v1/scans/{jobId}/events`, no query), or nil when the
    /// path is not the events route. The text is not checked to be a UUID.
    public static func eventsJobId(inPath path: some StringProtocol) -> Substring? {
        let parts = String(path).split(separator: "/", omittingEmptySubsequences: false)
        let prefix = scansPrefix.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == prefix.count + 2, parts.starts(with: prefix), parts.last == Substring(eventsSuffix) else { return nil }
        return parts[prefix.count]
    }

    /// Whether `path` is an events route (one job's or the multiplexed one).
    /// The methods a route path answers (for 405 and its `Allow` header), nil for a path that is no route.
    public static func allowedMethods(forPath path: some StringProtocol) -> [String]? {
        if isEvents(path) || [limits, health, metrics, openAPI].contains(String(path)) { return ["GET", "HEAD"] }
        let prefix = scansPrefix + "/"
        if path.hasPrefix(prefix), !path.dropFirst(prefix.count).isEmpty, !path.dropFirst(prefix.count).contains("/") {
            return ["GET", "HEAD", "PUT", "DELETE"]
        }
        return nil
    }

    /// The job id segment of a path under `/v1/scans/` (a scan or its events), unchecked; nil elsewhere.
    public static func jobIdText(inPath path: some StringProtocol) -> Substring? {
        let prefix = scansPrefix + "/"
        guard path.hasPrefix(prefix) else { return nil }
        let segment = Substring(path).dropFirst(prefix.count).prefix { $0 != "/" }
        return segment.isEmpty ? nil : segment
    }

    public static func isEvents(_ path: some StringProtocol) -> Bool { eventsJobId(inPath: path) != nil || isMultiplexedEvents(path) }
}

/// Header and query names of protocol v1.
public enum ProtocolNames {
    public static let accessTokenQuery = "access_token"
    public static let afterQuery = "after"
    /// The job list of the multiplexed events route (`ID,ID:N,…`).
    public static let jobsQuery = "jobs"
    /// On a `PUT`: number a new job's events after this seq (see `Routes.upload`).
    public static let continueAfterQuery = "continueAfter"
    public static let jpegMediaType = "image/jpeg"
}
