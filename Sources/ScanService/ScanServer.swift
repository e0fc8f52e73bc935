import BookscanBase
import Foundation
package import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
public import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import ScanAnalytics
import ScanEngine
import ScanProtocol
public import ServiceLifecycle
public import UnixSignals

/// The scan service: the HTTP + WebSocket API of protocol v1 over a bounded scan worker pool.
/// `bookscan serve` runs it standalone; the CLI embeds it on loopback when no server is configured.
public struct ScanServer: Sendable {
    public let configuration: ServiceConfiguration
    private let logger: Logger

    public init(configuration: ServiceConfiguration, logger: Logger = Logger(label: "bookscan.service")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Runs until the task is canceled or one of `shutdownSignals` arrives (then shuts down
    /// gracefully); `onReady` receives the bound port once the server listens.
    public func run(shutdownSignals: [UnixSignal] = [], onReady: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        try await makeServiceGroup(shutdownSignals: shutdownSignals, onReady: onReady).run()
    }

    /// The service as a lifecycle group: `run()` it, and `triggerGracefulShutdown()` to stop it.
    public func makeServiceGroup(shutdownSignals: [UnixSignal] = [], onReady: @escaping @Sendable (Int) async -> Void = { _ in }) async throws
        -> ServiceGroup
    {
        // Loading the recognizer (language data, models) takes a while: on a thread of its own, never on the cooperative pool.
        let configuration = self.configuration
        let engine = try await NIOThreadPool.singleton.runIfActive { try ScanEngine(configuration: configuration.engine) }
        let metrics = ServiceMetrics()
        let (store, storeServices) = try await Self.makeStore(configuration, metrics: metrics, logger: logger)
        // Test seams become pieces of the service here, once; nothing on the request path reads them.
        let faults = configuration.faults
        let delivery = faults.eventDelivery
        let access = ServiceAccess(token: configuration.token)
        let router = Self.makeRouter(
            configuration: configuration, store: store, metrics: metrics, readerStatus: engine.readerStatus, logger: logger)
        let events = EventSocket(configuration: configuration, store: store, metrics: metrics, access: access, delivery: delivery)

        let workers = ScanWorkers(
            store: faults.workerStore(store), engine: faults.workerEngine(engine), count: configuration.workers,
            maxPixels: configuration.maxPixels, metrics: metrics, logger: logger)
        let housekeeping = Housekeeping(store: store, interval: min(configuration.jobTTL, .seconds(30)))
        let guarded = GuardedServerChannel.builder(configuration: configuration, events: faults.eventUpgrades(events))
        let server = try configuration.tls.map { try HTTPServerBuilder.tls(guarded, tlsConfiguration: $0.configuration) } ?? guarded
        let app = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "bookscan"),
            services: storeServices + [WorkerService(workers: workers), housekeeping],
            onServerRunning: { channel in await onReady(channel.localAddress?.port ?? 0) },
            logger: logger)
        return ServiceGroup(
            configuration: .init(services: [.init(service: app)], gracefulShutdownSignals: shutdownSignals, logger: logger))
    }

    /// Every route and middleware of the service over `store`, in the order a request meets them: what
    /// `makeServiceGroup` serves, and what `inProcess` hands to route and middleware tests. The test
    /// seams become middleware here, once (`FaultSeams+Assembly`); nothing on the request path reads them.
    static func makeRouter(
        configuration: ServiceConfiguration, store: any JobStore, metrics: ServiceMetrics, readerStatus: OCREngineStatus?, logger: Logger
    ) -> Router<ScanRequestContext> {
        let faults = configuration.faults
        let routes = ScanRoutes(
            configuration: configuration, store: store, metrics: metrics, version: BookscanVersion.current, ocr: readerStatus,
            delivery: faults.eventDelivery, validationCheckpoint: faults.validationCheckpoint)
        let access = ServiceAccess(token: configuration.token)
        let router = Router(context: ScanRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
        router.add(middleware: AccessLogMiddleware(logger: logger))
        router.add(middleware: UnmatchedRouteMiddleware(access: access))
        for middleware in faults.routerMiddleware { router.add(middleware: middleware) }
        if configuration.database != nil {
            router.add(middleware: StoreUnavailableMiddleware(retryAfterSeconds: configuration.retryAfterSeconds))
        }
        // The token is checked by the group each route is registered in (`AccessGroups`), after the
        // router matched the path: never by looking at the raw path.
        let groups = AccessGroups(router: router, access: access, routeMiddleware: faults.routeMiddleware)
        routes.register(on: groups)
        WebClientRoutes(origins: configuration.webOrigins, scheme: configuration.scheme).register(on: groups)
        TicketRoutes(tickets: access.tickets).register(on: groups)
        AnalyticsIngestRoutes(log: configuration.analyticsLogPath.map { AnalyticsLog(path: $0) }).register(on: groups)
        return router
    }

    /// The service's routes and middleware over a job store in this process's memory, with no socket,
    /// no workers and no title reading: route and middleware tests drive it in process with
    /// HummingbirdTesting (`app.test(.router)`). Jobs it accepts stay queued. What depends on the
    /// connection (WebSocket upgrades, connection caps, body-rate floors, `100 Continue`) needs the
    /// real server (`makeServiceGroup`).
    package static func inProcess(
        configuration: ServiceConfiguration, logger: Logger = Logger(label: "bookscan.service")
    ) -> some ApplicationProtocol {
        let store = MemoryJobStore(ttl: configuration.jobTTL, queueCapacity: configuration.queueCapacity)
        let router = makeRouter(configuration: configuration, store: store, metrics: ServiceMetrics(), readerStatus: nil, logger: logger)
        return Application(router: router, logger: logger)
    }

    /// The job store: in memory, or the shared PostgreSQL store (migrated first unless told not to)
    /// with the services it needs running (the connection pool, the notification listener).
    private static func makeStore(_ configuration: ServiceConfiguration, metrics: ServiceMetrics, logger: Logger) async throws -> (any JobStore, [any Service]) {
        guard let database = configuration.database else {
            return (MemoryJobStore(ttl: configuration.jobTTL, queueCapacity: configuration.queueCapacity), [])
        }
        let (store, services) = try await PostgresJobStore.make(
            database, ttl: configuration.jobTTL, queueCapacity: configuration.queueCapacity, heartbeat: configuration.heartbeatInterval,
            metrics: metrics, logger: logger)
        return (store, services)
    }
}
