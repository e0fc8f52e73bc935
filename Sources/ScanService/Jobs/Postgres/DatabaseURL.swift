public import Foundation

/// Where the PostgreSQL job store lives: `postgres://USER[:PASSWORD]@HOST[:PORT]/DB`, or with
/// `?host=/socket/dir` for a Unix-domain socket; `?sslmode=disable|prefer|require|verify-ca|verify-full`
/// (libpq's meanings, `prefer` by default over TCP) and `sslrootcert=FILE` (the CA to trust) set TLS. The password comes from the URL, else `PGPASSWORD`,
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
    /// Whether and how the connection is encrypted (`?sslmode=`).
    public var tlsMode: DatabaseTLSMode
    /// PEM file of the certificate authorities to trust (`?sslrootcert=`); nil: the system's.
    public var rootCertificatePath: String?

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
        let mode = components.queryItems?.last { $0.name == "sslmode" }?.value
        if let mode {
            guard let known = DatabaseTLSMode(rawValue: mode) else {
                let known = DatabaseTLSMode.allCases.map(\.rawValue).joined(separator: ", ")
                throw Invalid(description: "the database URL's sslmode \"\(mode)\" is not one of \(known)")
            }
            tlsMode = known
        } else {
            // libpq's default; a Unix socket never uses TLS.
            tlsMode = socketDirectory == nil ? .prefer : .disable
        }
        rootCertificatePath = components.queryItems?.last { $0.name == "sslrootcert" }?.value.flatMap { $0.isEmpty ? nil : $0 }
        if socketDirectory != nil, tlsMode.requiresTLS {
            throw Invalid(description: "the database URL asks for sslmode=\(tlsMode.rawValue) over a Unix socket, which never uses TLS")
        }
    }

    /// The socket file of `socketDirectory` (`DIR/.s.PGSQL.PORT`).
    public var socketPath: String? { socketDirectory.map { "\($0)/.s.PGSQL.\(port)" } }

    /// Where the server is: `HOST:PORT`, or the socket file.
    public var endpoint: String { socketPath ?? "\(host ?? ""):\(port)" }

    /// The URL without its password.
    public var description: String {
        var query = socketDirectory.map { ["host=\($0)"] } ?? []
        if socketDirectory == nil, tlsMode != .prefer { query.append("sslmode=\(tlsMode.rawValue)") }
        if let rootCertificatePath { query.append("sslrootcert=\(rootCertificatePath)") }
        let place = query.isEmpty ? "" : "?" + query.joined(separator: "&")
        return "postgres://\(username)@\(host ?? "")\(host == nil ? "" : ":\(port)")/\(database)\(place)"
    }
}
