import Foundation

/// Where the PostgreSQL job store lives: `postgres://USER[:PASSWORD]@HOST[:PORT]/DB`, or with
/// `?host=/socket/dir` for a Unix-domain socket. The password comes from the URL, else `PGPASSWORD`,
/// else a file (`--database-password-file`); it is never logged (`description` hides it).
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    public var username: String
    public var password: String?
    /// A TCP host, or nil with `socketDirectory`.
    public var host: String?
    public var port: Int
    public var database: String
    /// The directory of the server's Unix-domain socket (`?host=/dir`).
    public var socketDirectory: String?

    /// The default PostgreSQL port.
    public static let defaultPort = 5432

    /// Why a database URL was refused, for a one-line error.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// Parses `text`; `environment` supplies `PGPASSWORD` when the URL has no password.
    public init(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(Invalid) {
        guard let components = URLComponents(string: text), let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme) else {
            throw Invalid(description: "the database URL must look like postgres://USER@HOST:PORT/DB")
        }
        guard let user = components.user, !user.isEmpty else { throw Invalid(description: "the database URL names no user (postgres://USER@HOST/DB)") }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty else { throw Invalid(description: "the database URL names no database (postgres://USER@HOST/DB)") }
        username = user.removingPercentEncoding ?? user
        password = components.password.map { $0.removingPercentEncoding ?? $0 } ?? environment["PGPASSWORD"]
        self.database = database
        port = components.port ?? Self.defaultPort
        let socket = components.queryItems?.first { $0.name == "host" }?.value
        if let socket, socket.hasPrefix("/") {
            socketDirectory = socket
            host = nil
        } else {
            guard let host = components.host, !host.isEmpty else { throw Invalid(description: "the database URL names no host") }
            self.host = host
            socketDirectory = nil
        }
    }

    /// The socket file of `socketDirectory` (`DIR/.s.PGSQL.PORT`).
    public var socketPath: String? { socketDirectory.map { "\($0)/.s.PGSQL.\(port)" } }

    /// The URL without its password.
    public var description: String {
        let place = socketDirectory.map { "?host=\($0)" } ?? ""
        return "postgres://\(username)@\(host ?? "")\(host == nil ? "" : ":\(port)")/\(database)\(place)"
    }
}
