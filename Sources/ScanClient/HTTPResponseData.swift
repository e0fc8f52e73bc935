/// A complete HTTP response: status, headers (names lower-cased) and body bytes.
public struct HTTPResponseData: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]
    /// New TCP connections the transfer had to open (0 when it reused a kept-alive one).
    public var newConnections = 0

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A header value by case-insensitive name.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// An HTTP request for `CurlHTTPClient`.
public struct HTTPRequestData: Sendable {
    public var method: String
    public var url: String
    public var headers: [(String, String)]
    public var body: [UInt8]?
    /// Open a new connection for this request and close it afterwards, instead of reusing a kept-alive
    /// one: for a request that must take the path a new connection takes (the probe after a refused
    /// WebSocket upgrade: a proxy may judge each connection by its first request).
    public var freshConnection: Bool

    public init(method: String, url: String, headers: [(String, String)] = [], body: [UInt8]? = nil, freshConnection: Bool = false) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.freshConnection = freshConnection
    }
}
