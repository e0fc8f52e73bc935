public import Foundation

/// The paths of protocol v1, defined once: the patterns the server's router registers, the paths
/// the client requests, and the parser the server uses on raw request paths (upgrade decisions).
public enum Routes {
    /// The version segment every protocol v1 route starts with (access is decided by `Endpoint.access`, never by prefix).
    public static let versionPrefix = "/v1/"
    public static let scansPrefix = "/v1/scans"
    public static let limits = "/v1/limits"
    public static let health = "/healthz"
    /// The service's numbers in the Prometheus text format (behind the token when one is set).
    public static let metrics = "/metrics"
    /// The OpenAPI 3.1 document of protocol v1.
    public static let openAPI = "/openapi.yaml"
    /// The web client's page (`bookscan serve` answers it at the root).
    public static let webPage = "/"
    /// The folder the web client's modules and style sheet are served from (`/web/app.js`, …).
    public static let webAssetsPrefix = "/web"
    /// Where a client that is not the CLI (the web page) appends its run records to the service's analytics log.
    public static let analytics = "/v1/analytics"
    /// Where a client that cannot set headers on a WebSocket or an event stream (a browser) gets a short-lived
    /// events ticket (`EventsTicket`) for `?ticket=`, so the long-lived token never goes into a URL.
    public static let tickets = "/v1/tickets"
    /// Name of the asset parameter in the web assets pattern.
    public static let webAssetParameter = "asset"
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
        public static let webPage = Routes.webPage
        /// One file of the web client (`:asset` is the parameter `webAssetParameter`).
        public static let webAsset = "\(Routes.webAssetsPrefix)/:\(Routes.webAssetParameter)"
        public static let analytics = Routes.analytics
        public static let tickets = Routes.tickets
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

    /// Whether `path` (no query) is the multiplexed events route, as the router matches it.
    public static func isMultiplexedEvents(_ path: some StringProtocol) -> Bool { match(path: path)?.endpoint == .multiplexedEvents }

    /// The job id text of an events path (`/v1/scans/{jobId}/events`, no query), or nil when the
    /// path is not the events route as the router matches it. The text is not checked to be a UUID.
    public static func eventsJobId(inPath path: some StringProtocol) -> Substring? {
        guard let match = match(path: path), match.endpoint == .events else { return nil }
        return match.jobId
    }

    /// The methods a route path answers (for 405 and its `Allow` header), nil for a path that is no route.
    public static func allowedMethods(forPath path: some StringProtocol) -> [String]? { match(path: path)?.endpoint.methods }

    /// The job id segment of a path matching a scan or its events, unchecked; nil elsewhere.
    public static func jobIdText(inPath path: some StringProtocol) -> Substring? { match(path: path)?.jobId }

    /// Whether `path` is an events route (one job's or the multiplexed one).
    public static func isEvents(_ path: some StringProtocol) -> Bool { match(path: path)?.endpoint.access == .bearerOrQueryToken }

    /// The endpoint `path` (no query) reaches, matched the way the service's router (Hummingbird's
    /// trie) matches it: the path splits at `/` with empty segments skipped (so `//v1//limits/` is
    /// `/v1/limits`), each segment compared exactly (no percent-decoding, no dot segments, case
    /// sensitive), `:jobId` taking any one segment. Whatever reaches a route over HTTP reaches the same
    /// one here, so decisions made before the router (a WebSocket upgrade) agree with it.
    public static func match(path: some StringProtocol) -> Match? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        for (endpoint, pattern) in patternSegments where pattern.count == segments.count {
            var jobId: Substring?
            let matches = zip(pattern, segments).allSatisfy { expected, segment in
                if expected == jobIdSegment {
                    jobId = Substring(segment)
                    return true
                }
                return expected.first == parameterMark || expected == segment
            }
            if matches { return Match(endpoint: endpoint, jobId: jobId) }
        }
        return nil
    }

    /// Each endpoint with its pattern's segments, in `Endpoint.allCases` order.
    private static let patternSegments = Endpoint.allCases.map { ($0, $0.pattern.split(separator: "/", omittingEmptySubsequences: true)) }
    /// The pattern segment that takes any one path segment as the job id.
    private static let jobIdSegment: Substring = ":\(jobIdParameter)"
    /// What starts a pattern segment that takes any one path segment (a parameter).
    private static let parameterMark: Character = ":"

    /// A request path matched to an endpoint (see `match(path:)`).
    public struct Match: Equatable, Sendable {
        public let endpoint: Endpoint
        /// The `:jobId` segment, unchecked; nil for endpoints without one.
        public let jobId: Substring?
    }

    /// The endpoints of protocol v1: the pattern each is registered under, its methods and who may call it.
    public enum Endpoint: CaseIterable, Sendable {
        case scan, events, multiplexedEvents, limits, health, metrics, openAPI, webPage, webAsset, analytics, tickets

        /// The router pattern.
        public var pattern: String {
            switch self {
            case .scan: Pattern.scan
            case .events: Pattern.events
            case .multiplexedEvents: Pattern.multiplexedEvents
            case .limits: Pattern.limits
            case .health: Pattern.health
            case .metrics: Pattern.metrics
            case .openAPI: Pattern.openAPI
            case .webPage: Pattern.webPage
            case .webAsset: Pattern.webAsset
            case .analytics: Pattern.analytics
            case .tickets: Pattern.tickets
            }
        }

        /// The methods it answers (HEAD wherever there is GET).
        public var methods: [String] {
            switch self {
            case .scan: ["GET", "HEAD", "PUT", "DELETE"]
            case .analytics, .tickets: ["POST"]
            default: ["GET", "HEAD"]
            }
        }

        /// Who may call it when the service has a token.
        public var access: Access {
            switch self {
            case .health, .openAPI, .webPage, .webAsset: .open
            case .events, .multiplexedEvents: .bearerOrQueryToken
            case .scan, .limits, .metrics, .analytics, .tickets: .bearer
            }
        }
    }

    /// Who may call an endpoint of a service that has a bearer token.
    public enum Access: Sendable {
        /// Anyone (`/healthz`, `/openapi.yaml`, the web client's page and files: the page asks for the token itself).
        case open
        /// `Authorization: Bearer <token>`.
        case bearer
        /// The bearer header, or `?ticket=` (a short-lived `EventsTicket`), or `?access_token=` (browsers cannot set
        /// headers on a WebSocket or an EventSource).
        case bearerOrQueryToken
    }
}

/// Header and query names of protocol v1.
public enum ProtocolNames {
    public static let accessTokenQuery = "access_token"
    /// A short-lived events ticket (`POST /v1/tickets`) in place of the token on the events routes.
    public static let ticketQuery = "ticket"
    public static let afterQuery = "after"
    /// The job list of the multiplexed events route (`ID,ID:N,…`).
    public static let jobsQuery = "jobs"
    /// On a `PUT`: number a new job's events after this seq (see `Routes.upload`).
    public static let continueAfterQuery = "continueAfter"
    public static let jpegMediaType = "image/jpeg"
}
