import Foundation

/// How an instance takes part in the shared store.
public struct DatabaseSettings: Sendable {
    public var url: DatabaseURL
    /// This instance's name in leases and `/healthz`. Writes are fenced by a token per claim, not by
    /// this name, so two instances given the same name never write over each other's attempts.
    public var instance: String
    /// How long a claimed job stays this instance's without a renewal.
    public var lease: Duration
    /// Runs of one job before it is failed (instances that died while running it).
    public var maxAttempts: Int
    /// Apply migrations at start (else the schema must be current).
    public var migrate: Bool
    /// Connections in this instance's pool.
    public var poolSize: Int
    /// The longest one statement may run on the server (`statement_timeout`): work a request gave up
    /// on ends there too, and releases its connection and row locks.
    public var statementTimeout: Duration

    public static let defaultLease: Duration = .seconds(10)
    public static let defaultMaxAttempts = 3
    public static let defaultPoolSize = 20
    public static let defaultStatementTimeout: Duration = .seconds(10)

    /// This process's default instance name: `host-pid-RANDOM`, six hex digits drawn once per process
    /// start (containers all run as pid 1 on hosts named alike).
    public static let processInstance: String = {
        let suffix = UUID().uuidString.lowercased().prefix(6)
        return "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)-\(suffix)"
    }()

    public init(
        url: DatabaseURL, instance: String? = nil, lease: Duration = defaultLease, maxAttempts: Int = defaultMaxAttempts, migrate: Bool = true,
        poolSize: Int = defaultPoolSize, statementTimeout: Duration = defaultStatementTimeout
    ) {
        self.url = url
        self.instance = instance ?? Self.processInstance
        self.lease = lease
        self.maxAttempts = max(1, maxAttempts)
        self.migrate = migrate
        self.poolSize = max(1, poolSize)
        self.statementTimeout = statementTimeout
    }
}
