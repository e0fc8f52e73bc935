/// What the service accepts, from `GET /v1/limits`; the client fits images to these.
public struct ServiceLimits: Codable, Sendable, Equatable {
    /// Protocol version the server speaks.
    public var protocolVersion: Int
    /// Largest upload body in bytes.
    public var maxBytes: Int
    /// Largest image in pixels (width × height) the server will decode.
    public var maxPixels: Int
    /// Long side clients should resize to before upload; the server accepts up to `maxPixels`.
    public var recommendedLongSide: Int
    /// Media types accepted by `PUT /v1/scans/{jobId}`.
    public var acceptedTypes: [String]
    /// Seconds between heartbeats on the events socket.
    public var heartbeatSeconds: Double
    /// Seconds a finished job stays readable.
    public var jobTTLSeconds: Double
    /// Whether the events route also answers as an event stream (Server-Sent Events). Absent from
    /// servers that predate it: clients then go from the WebSocket straight to polling.
    public var eventStream: Bool?
    /// How many jobs one multiplexed events subscription (`/v1/events`) may follow at once. Absent
    /// from servers without that route: clients then open one events socket per job.
    public var maxJobsPerEventSocket: Int?

    public init(
        protocolVersion: Int = 1, maxBytes: Int, maxPixels: Int, recommendedLongSide: Int, acceptedTypes: [String] = ["image/jpeg"],
        heartbeatSeconds: Double, jobTTLSeconds: Double, eventStream: Bool? = true, maxJobsPerEventSocket: Int? = nil
    ) {
        self.eventStream = eventStream
        self.maxJobsPerEventSocket = maxJobsPerEventSocket
        self.protocolVersion = protocolVersion
        self.maxBytes = maxBytes
        self.maxPixels = maxPixels
        self.recommendedLongSide = recommendedLongSide
        self.acceptedTypes = acceptedTypes
        self.heartbeatSeconds = heartbeatSeconds
        self.jobTTLSeconds = jobTTLSeconds
    }
}

/// `GET /healthz` body.
public struct HealthStatus: Codable, Sendable, Equatable {
    public var status: String
    public var version: String
    public var jobsQueued: Int
    public var jobsRunning: Int
    /// Jobs held, in any state (finished ones until their TTL passes).
    public var jobsHeld: Int
    /// Scans the engine has started since the service started.
    public var scansStarted: Int
    /// The OCR engine reading titles; nil when the service only finds boxes.
    public var ocr: OCREngineStatus?
    /// Where jobs live: `memory` (this process) or `postgres` (shared by every instance on the database).
    public var store: String?
    /// This instance's name (in leases and logs); set with the shared store.
    public var instance: String?
    /// With the shared store: `ok`, or `unavailable` while its database cannot be reached (then the
    /// status is `degraded` and the HTTP status 503, so a load balancer routes around this instance).
    public var database: String?

    public init(
        status: String, version: String, jobsQueued: Int, jobsRunning: Int, jobsHeld: Int, scansStarted: Int, ocr: OCREngineStatus? = nil,
        store: String? = nil, instance: String? = nil, database: String? = nil
    ) {
        self.database = database
        self.ocr = ocr
        self.store = store
        self.instance = instance
        self.status = status
        self.version = version
        self.jobsQueued = jobsQueued
        self.jobsRunning = jobsRunning
        self.jobsHeld = jobsHeld
        self.scansStarted = scansStarted
    }
}
