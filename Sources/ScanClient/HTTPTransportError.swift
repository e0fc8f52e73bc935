/// Why an HTTP exchange produced no response (a response with an error status is not an error here).
public struct HTTPTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure.
    public enum Kind: String, Sendable, Equatable {
        case couldNotResolve = "could_not_resolve"
        case couldNotConnect = "could_not_connect"
        case timedOut = "timed_out"
        case connectionReset = "connection_reset"
        case tlsVerification = "tls_verification"
        /// The response body passed `CurlHTTPClient.Configuration.maxResponseBytes`.
        case responseTooLarge = "response_too_large"
        case canceled
        case other
    }

    public var kind: Kind
    /// libcurl's own words.
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// Whether sending the same idempotent request again may succeed.
    public var isRetryable: Bool {
        switch kind {
        case .couldNotConnect, .timedOut, .connectionReset: true
        case .couldNotResolve, .tlsVerification, .responseTooLarge, .canceled, .other: false
        }
    }

    public var description: String { message }
}
