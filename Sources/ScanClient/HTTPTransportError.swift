/// Why an HTTP exchange produced no response (a response with an error status is not an error here).
package struct HTTPTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure.
    package enum Kind: String, Sendable, Equatable {
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

    package var kind: Kind
    /// libcurl's own words.
    package var message: String

    package init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// Whether sending the same idempotent request again may succeed.
    package var isRetryable: Bool {
        switch kind {
        case .couldNotConnect, .timedOut, .connectionReset: true
        case .couldNotResolve, .tlsVerification, .responseTooLarge, .canceled, .other: false
        }
    }

    package var description: String { message }
}
