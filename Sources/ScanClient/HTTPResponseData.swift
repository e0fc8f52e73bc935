/// A complete HTTP response: status, headers (names lower-cased) and body bytes.
package struct HTTPResponseData: Sendable, Equatable {
    package var status: Int
    package var headers: [String: String]
    package var body: [UInt8]
    /// New TCP connections the transfer had to open (0 when it reused a kept-alive one).
    package var newConnections = 0

    package init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A header value by case-insensitive name.
    package func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// An HTTP request for `CurlHTTPClient`.
package struct HTTPRequestData: Sendable {
    package var method: String
    package var url: String
    package var headers: [(String, String)]
    package var body: [UInt8]?
    /// Open a new connection for this request and close it afterwards, instead of reusing a kept-alive
    /// one: for a request that must take the path a new connection takes (the probe after a refused
    /// WebSocket upgrade: a proxy may judge each connection by its first request).
    package var freshConnection: Bool

    package init(method: String, url: String, headers: [(String, String)] = [], body: [UInt8]? = nil, freshConnection: Bool = false) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.freshConnection = freshConnection
    }
}
