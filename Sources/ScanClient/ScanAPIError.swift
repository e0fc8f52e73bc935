package import ScanProtocol

/// Why a call to the scan service failed.
package enum ScanAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The service answered with an error status (and usually a protocol error body).
    case http(status: Int, ErrorBody?)
    /// No answer: the connection failed, was reset or timed out.
    case transport(HTTPTransportError)
    /// The answer was not the protocol message expected.
    case badResponse(String)

    package var description: String {
        switch self {
        case .http(let status, let body): body.map { "HTTP \(status): \($0.message)" } ?? "HTTP \(status)"
        case .transport(let error): error.message
        case .badResponse(let what): "unexpected response: \(what)"
        }
    }

    /// The HTTP status, when there was a response.
    package var status: Int? {
        if case .http(let status, _) = self { status } else { nil }
    }
}
