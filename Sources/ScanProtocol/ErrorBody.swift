/// Machine-readable reason of an error; clients switch on this, never on the message text.
public enum ErrorCode: String, Codable, Sendable, CaseIterable {
    case badJobId = "bad_job_id"
    case unauthorized
    case payloadTooLarge = "payload_too_large"
    case unsupportedMediaType = "unsupported_media_type"
    case undecodableImage = "undecodable_image"
    case tooManyPixels = "too_many_pixels"
    case queueFull = "queue_full"
    case jobConflict = "job_conflict"
    case notFound = "not_found"
    case canceled
    case scanFailed = "scan_failed"
    case tooManySubscribers = "too_many_subscribers"
    /// A multiplexed events socket already follows its limit of jobs.
    case tooManyJobs = "too_many_jobs"
    /// The shared store's database cannot be reached; retry after `Retry-After`.
    case databaseUnavailable = "database_unavailable"
    case tooManyConnections = "too_many_connections"
    case badRequest = "bad_request"
    case `internal`
}

/// The body of every error: `{"error":{"code","message","retryable"}}` carries one of these.
public struct ErrorBody: Codable, Sendable, Equatable, Error {
    public var code: ErrorCode
    public var message: String
    /// Whether the same request may succeed later unchanged.
    public var retryable: Bool

    public init(code: ErrorCode, message: String, retryable: Bool) {
        self.code = code
        self.message = message
        self.retryable = retryable
    }
}

/// The JSON envelope of an error response.
public struct ErrorResponse: Codable, Sendable, Equatable {
    public var error: ErrorBody

    public init(error: ErrorBody) {
        self.error = error
    }
}
