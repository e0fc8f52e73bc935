package import Foundation
package import ScanProtocol

/// Typed calls of protocol v1 over libcurl: limits, upload (with retries), status, cancel.
package struct ScanAPI: Sendable {
    /// `http(s)://host:port`, no trailing slash.
    package let baseURL: String
    package let token: String?
    package let http: CurlHTTPClient
    package let uploadRetry: RetryPolicy

    package init(baseURL: String, token: String?, http: CurlHTTPClient = .init(), uploadRetry: RetryPolicy = .init()) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.token = token
        self.http = http
        self.uploadRetry = uploadRetry
    }

    /// `GET /v1/limits`.
    package func limits() async throws(ScanAPIError) -> ServiceLimits {
        try decode(ServiceLimits.self, try await call("GET", Routes.limits))
    }

    /// `PUT /v1/scans/{jobId}`, retried on connection errors and 429/502/503/504 (the PUT is
    /// idempotent by jobId, so a retry never makes a second job). `progress(sent, total)` follows the body.
    package func upload(
        jobId: UUID, jpeg: [UInt8], continuingAfter: Int = 0, progress: (@Sendable (Int, Int) -> Void)? = nil,
        onRetry: (@Sendable (Int, ScanAPIError, Duration) -> Void)? = nil
    ) async throws(ScanAPIError) -> JobSnapshot {
        var attempt = 0
        while true {
            let failure: ScanAPIError
            let delay: Duration?
            do {
                let response = try await http.send(
                    request("PUT", Routes.upload(jobId, continuingAfter: continuingAfter), body: jpeg, contentType: ProtocolNames.jpegMediaType), uploadProgress: progress)
                if response.status == 202 || response.status == 200 { return try decode(JobSnapshot.self, response) }
                failure = .http(status: response.status, Self.errorBody(response))
                delay = uploadRetry.delay(afterAttempt: attempt, status: response.status, retryAfter: response.header("retry-after"))
            } catch let error as HTTPTransportError {
                failure = .transport(error)
                delay = error.isRetryable ? uploadRetry.delay(afterAttempt: attempt, status: nil, retryAfter: nil) : nil
            } catch let error as ScanAPIError {
                throw error
            } catch {
                throw .transport(HTTPTransportError(kind: .canceled, message: "canceled"))
            }
            guard let delay else { throw failure }
            onRetry?(attempt + 1, failure, delay)
            try await sleep(delay)
            attempt += 1
        }
    }

    /// `GET /v1/scans/{jobId}` as the tracker consumes it.
    package func poll(jobId: UUID) async -> PollOutcome {
        do {
            let response = try await http.send(request("GET", Routes.scan(jobId)))
            if response.status != 200, response.status != 404, let wait = RetryAfter.parse(response.header("retry-after")) {
                return .throttled(status: response.status, retryAfter: wait)
            }
            guard response.status == 200 else { return .httpError(status: response.status, Self.errorBody(response)) }
            return .snapshot(try WireCoding.decode(JobSnapshot.self, from: Data(response.body)))
        } catch let error as HTTPTransportError {
            return .transportError(error.message)
        } catch {
            return .transportError("undecodable status: \(error)")
        }
    }

    /// `GET /v1/scans/{jobId}`.
    package func status(jobId: UUID) async throws(ScanAPIError) -> JobSnapshot {
        try decode(JobSnapshot.self, try await call("GET", Routes.scan(jobId)))
    }

    /// `DELETE /v1/scans/{jobId}`.
    package func cancel(jobId: UUID) async throws(ScanAPIError) -> JobSnapshot {
        try decode(JobSnapshot.self, try await call("DELETE", Routes.scan(jobId)))
    }

    /// The status a plain GET of the events route gets: after a refused upgrade, this says why
    /// (401, 404, 503 …), since a WebSocket client only learns that the upgrade failed. It goes over a
    /// new connection, as the WebSocket did: a proxy judges a connection by its first request.
    package func probeEventsRoute(jobId: UUID) async -> Int? {
        var probe = request("GET", Routes.events(jobId, after: 0))
        probe.freshConnection = true
        return try? await http.send(probe).status
    }

    /// `GET /v1/scans/{jobId}/events?after=N` as an event stream (Server-Sent Events), on a new
    /// connection of its own: it is held for the whole job (the kept-alive one stays free for polls),
    /// and a proxy may judge each connection by its first request.
    func eventStreamRequest(jobId: UUID, after: Int) -> HTTPRequestData {
        var request = request("GET", Routes.events(jobId, after: after))
        request.freshConnection = true
        request.headers.removeAll { $0.0 == "Accept" }
        request.headers.append(("Accept", EventStreamWire.mediaType))
        if after > 0 { request.headers.append((EventStreamWire.lastEventIDHeader, "\(after)")) }
        return request
    }

    /// The `ws://` or `wss://` URL of a job's events.
    package func eventsURL(jobId: UUID, after: Int) -> String { socketBase + Routes.events(jobId, after: after) }

    /// The multiplexed events WebSocket (`/v1/events`), with `jobs` subscribed from the start.
    package func multiplexedEventsURL(jobs: [JobCursor] = []) -> String { socketBase + Routes.multiplexedEvents(jobs) }

    /// `baseURL` with the WebSocket scheme.
    private var socketBase: String {
        if baseURL.hasPrefix("https://") { "wss://" + baseURL.dropFirst("https://".count) } else if baseURL.hasPrefix("http://") {
            "ws://" + baseURL.dropFirst("http://".count)
        } else { baseURL }
    }

    // MARK: helpers

    private func request(_ method: String, _ path: String, body: [UInt8]? = nil, contentType: String? = nil) -> HTTPRequestData {
        var headers: [(String, String)] = [("Accept", "application/json"), ("User-Agent", "bookscan/0.1")]
        if let token { headers.append(("Authorization", "Bearer \(token)")) }
        if let contentType { headers.append(("Content-Type", contentType)) }
        return HTTPRequestData(method: method, url: baseURL + path, headers: headers, body: body)
    }

    private func call(_ method: String, _ path: String) async throws(ScanAPIError) -> HTTPResponseData {
        let response: HTTPResponseData
        do { response = try await http.send(request(method, path)) } catch { throw .transport(error) }
        guard (200..<300).contains(response.status) else { throw .http(status: response.status, Self.errorBody(response)) }
        return response
    }

    private func decode<T: Decodable>(_ type: T.Type, _ response: HTTPResponseData) throws(ScanAPIError) -> T {
        do { return try WireCoding.decode(type, from: Data(response.body)) } catch {
            throw .badResponse("HTTP \(response.status) body is not a \(T.self)")
        }
    }

    private func sleep(_ delay: Duration) async throws(ScanAPIError) {
        do { try await Task.sleep(for: delay) } catch { throw .transport(HTTPTransportError(kind: .canceled, message: "canceled")) }
    }

    /// The protocol error a response carries, its message made fit to show (`ServerText`); nil when the
    /// body is not one.
    static func errorBody(_ response: HTTPResponseData) -> ErrorBody? {
        guard var body = try? WireCoding.decode(ErrorResponse.self, from: Data(response.body)).error else { return nil }
        body.message = ServerText.sanitized(body.message)
        return body
    }
}
