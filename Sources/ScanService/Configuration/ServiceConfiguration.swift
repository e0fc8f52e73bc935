import NIOCore
package import ScanEngine
import SpineReading

/// Everything a scan service needs to know to start: where to listen, who may call, and its limits.
public struct ServiceConfiguration: Sendable {
    /// Address to bind; loopback unless told otherwise.
    public var host: String
    /// Port to bind; 0 picks a free ephemeral port.
    public var port: Int
    /// Bearer token every route but `/healthz` and `/openapi.yaml` requires (`Routes.Endpoint.access`); nil means no authentication (loopback use).
    public var token: String?
    /// Certificate and key for HTTPS + WSS; nil serves plain HTTP + WS.
    public var tls: ServiceTLS? = nil
    /// Where `POST /v1/analytics` appends the web client's run records (`serve --analytics-log`); nil: that route answers 404.
    public var analyticsLogPath: String? = nil
    /// The `host:port` authorities people open the web page at (`serve` fills in its addresses), whose WebSocket
    /// origins the page's Content Security Policy names; empty: the address each connection came in on.
    public var webOrigins: [String] = []
    /// Scans running at once.
    public var workers: Int
    /// Jobs that may wait for a worker; one more is refused with 503.
    public var queueCapacity: Int
    /// Largest upload body in bytes.
    public var maxBytes: Int
    /// Bytes all uploads being received may buffer at once (at least `maxBytes`); an upload that
    /// does not fit is answered 503 `queue_full` + Retry-After.
    public var uploadMemory: Int
    /// Largest image in pixels.
    public var maxPixels: Int
    /// Long side the service recommends clients resize to.
    public var recommendedLongSide: Int
    /// How long a finished job, its events and result stay readable.
    public var jobTTL: Duration
    /// Interval between heartbeat messages on an events socket.
    public var heartbeatInterval: Duration
    /// Interval of server WebSocket pings; a client that misses one pong is dropped.
    public var pingInterval: Duration
    /// How long an events socket waits for the client's hello before it starts the replay anyway.
    public var streamGrace: Duration
    /// Open event sockets one job accepts.
    public var maxSubscribersPerJob: Int
    /// Jobs one multiplexed events subscription (`/v1/events`) may follow at once; one more is refused (429).
    public var maxJobsPerEventSocket: Int = ServiceConfiguration.defaultMaxJobsPerEventSocket
    /// Open connections one client address may hold; one more is answered 503 and closed. nil: no cap.
    public var maxConnectionsPerClient: Int?
    /// Open connections the whole service holds; one more is answered 503 and closed. nil: no cap.
    public var maxConnections: Int?
    /// The slowest a request body may arrive (averaged, after a grace period); slower ones are cut off with 408. nil: no floor.
    public var bodyRateFloor: BodyRateFloor? = .standard
    /// Time a new connection has to deliver its first complete request head (slowloris guard).
    public var headerTimeout: Duration
    /// A kept-alive connection with no request in flight, or a request body that stalls, is closed after this.
    public var idleTimeout: Duration
    /// Seconds a client is told to wait in `Retry-After` when the queue is full.
    public var retryAfterSeconds: Int
    /// Scan engine settings, with how titles are read (`engine.titles`: the recognizer, `serve --recognizer`,
    /// else `BOOKSCAN_RECOGNIZER`, else `RecognizerKind.standard`, and its language data; `.off`: boxes only).
    package var engine: ScanEngine.Configuration = .init(titles: .standard)
    /// Whether the service reads titles (the default: the recognizer `BOOKSCAN_RECOGNIZER` names, else
    /// Tesseract, with the library's own language data) or finds boxes only, loading no recognizer.
    /// Setting it true keeps a recognizer already chosen (`bookscan serve --recognizer`, `--ocr-language`).
    public var readsTitles: Bool {
        get {
            if case .off = engine.titles { return false }
            return true
        }
        set {
            if !newValue {
                engine.titles = .off
            } else if case .off = engine.titles {
                engine.titles = .standard
            }
        }
    }
    /// Test seams (`Faults/`): deliberate misbehaviour for tests, the fault campaign and benchmarks; none in production.
    package var faults = FaultSeams()
    /// The shared PostgreSQL job store (several instances on one database); nil: jobs in this process's memory.
    public var database: DatabaseSettings?

    public init(
        host: String = ServiceConfiguration.defaultHost,
        port: Int = 0,
        token: String? = nil,
        workers: Int = ServiceConfiguration.defaultWorkers,
        queueCapacity: Int = ServiceConfiguration.defaultQueueCapacity,
        maxBytes: Int = ServiceConfiguration.defaultMaxBytes,
        uploadMemory: Int = ServiceConfiguration.defaultUploadMemory,
        maxPixels: Int = ServiceConfiguration.defaultMaxPixels,
        recommendedLongSide: Int = ServiceConfiguration.defaultRecommendedLongSide,
        jobTTL: Duration = ServiceConfiguration.defaultJobTTL,
        heartbeatInterval: Duration = ServiceConfiguration.defaultHeartbeatInterval,
        pingInterval: Duration = ServiceConfiguration.defaultPingInterval,
        streamGrace: Duration = ServiceConfiguration.defaultStreamGrace,
        maxSubscribersPerJob: Int = ServiceConfiguration.defaultMaxSubscribersPerJob,
        maxConnectionsPerClient: Int? = ServiceConfiguration.defaultMaxConnectionsPerClient,
        maxConnections: Int? = ServiceConfiguration.defaultMaxConnections,
        headerTimeout: Duration = ServiceConfiguration.defaultHeaderTimeout,
        idleTimeout: Duration = ServiceConfiguration.defaultIdleTimeout,
        retryAfterSeconds: Int = ServiceConfiguration.defaultRetryAfterSeconds
    ) {
        self.host = host
        self.port = port
        self.token = token
        self.workers = max(1, workers)
        self.queueCapacity = max(0, queueCapacity)
        self.maxBytes = maxBytes
        self.uploadMemory = max(uploadMemory, maxBytes)
        self.maxPixels = maxPixels
        self.recommendedLongSide = recommendedLongSide
        self.jobTTL = jobTTL
        self.heartbeatInterval = heartbeatInterval
        self.pingInterval = pingInterval
        self.streamGrace = streamGrace
        self.maxSubscribersPerJob = maxSubscribersPerJob
        self.maxConnectionsPerClient = maxConnectionsPerClient.flatMap { $0 > 0 ? $0 : nil }
        self.maxConnections = maxConnections.flatMap { $0 > 0 ? $0 : nil }
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// `http` or `https`, as clients should call the service.
    public var scheme: String { tls == nil ? "http" : "https" }

    /// The address the service listens on unless told otherwise: loopback only.
    public static let defaultHost = "127.0.0.1"
    /// Jobs that may wait for a worker before uploads get 503, unless told otherwise.
    public static let defaultQueueCapacity = 256
    /// The largest upload in bytes unless told otherwise.
    public static let defaultMaxBytes = 20 * 1024 * 1024
    /// Bytes all uploads in progress may buffer at once unless told otherwise.
    public static let defaultUploadMemory = 256 * 1024 * 1024
    /// The largest image in pixels unless told otherwise.
    public static let defaultMaxPixels = 50_000_000
    /// Server WebSocket ping interval unless told otherwise.
    public static let defaultPingInterval: Duration = .seconds(10)
    /// How long an events socket waits for the client's hello before the replay, unless told otherwise.
    public static let defaultStreamGrace: Duration = .milliseconds(250)
    /// Open event sockets one job accepts unless told otherwise.
    public static let defaultMaxSubscribersPerJob = 32
    /// Open connections one client address may hold unless told otherwise.
    public static let defaultMaxConnectionsPerClient = 256
    /// Seconds a client is told to wait in `Retry-After` when the queue is full, unless told otherwise.
    public static let defaultRetryAfterSeconds = 2

    /// Long side clients are told to fit unless told otherwise: titles are read from the upload, so a
    /// 12 MP photo (4032 px) travels whole, as the camera stored it; only larger photos are shrunk.
    public static let defaultRecommendedLongSide = 4096
    /// How long a finished job stays readable unless told otherwise.
    public static let defaultJobTTL: Duration = .seconds(3600)
    /// Heartbeat interval on event sockets unless told otherwise.
    public static let defaultHeartbeatInterval: Duration = .seconds(2)
    /// Jobs per multiplexed events subscription unless told otherwise.
    public static let defaultMaxJobsPerEventSocket = 256
    /// Open connections of the whole service unless told otherwise: under 1024, the usual soft limit
    /// of open files, with room for the listener, the database pool and the OCR data files.
    public static let defaultMaxConnections = 960
    /// Time for a new connection's first request head unless told otherwise.
    public static let defaultHeaderTimeout: Duration = .seconds(10)
    /// Idle-connection and stalled-body timeout unless told otherwise.
    public static let defaultIdleTimeout: Duration = .seconds(30)

    /// One worker per core.
    public static var defaultWorkers: Int { max(1, System.coreCount) }
}
