public import Logging
import ServiceLifecycle

/// A scan service running in-process on loopback, for a CLI with no server configured and for
/// tests. Clients reach it over real HTTP and WebSocket at `baseURL`.
public final class EmbeddedScanService: Sendable {
    /// The port it listens on.
    public let port: Int
    /// `http://HOST:PORT`, or `https://` when it serves TLS.
    public var baseURL: String { "\(scheme)://\(host):\(port)" }
    private let host: String
    private let scheme: String
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(port: Int, host: String, scheme: String, group: ServiceGroup, task: Task<Void, any Error>) {
        self.port = port
        self.host = host
        self.scheme = scheme
        self.group = group
        self.task = task
    }

    /// Starts the service and returns once it accepts connections.
    public static func start(configuration: ServiceConfiguration = .init(), logger: Logger = Logger(label: "bookscan.embedded")) async throws
        -> EmbeddedScanService
    {
        let ready = AsyncStream<Int>.makeStream()
        let group = try await ScanServer(configuration: configuration, logger: logger).makeServiceGroup { port in ready.continuation.yield(port) }
        let task = Task {
            defer { ready.continuation.finish() }
            try await group.run()
        }
        var iterator = ready.stream.makeAsyncIterator()
        guard let port = await iterator.next() else {
            // The server ended before it listened: surface its error.
            try await task.value
            throw EmbeddedServiceError.didNotStart
        }
        return EmbeddedScanService(port: port, host: configuration.host, scheme: configuration.scheme, group: group, task: task)
    }

    /// Shuts the service down gracefully (running scans finish, sockets close), forcing it after `grace`.
    public func stop(grace: Duration = .seconds(3)) async {
        await group.triggerGracefulShutdown()
        let task = self.task
        let watchdog = Task {
            try await Task.sleep(for: grace)
            task.cancel()
        }
        _ = try? await task.value
        watchdog.cancel()
    }
}

/// Why the embedded service could not start.
public enum EmbeddedServiceError: Error, Sendable {
    case didNotStart
}
