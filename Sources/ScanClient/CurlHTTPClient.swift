import BookscanBase
import CCurlShim
import Foundation
import Synchronization

/// HTTP over libcurl: each transfer runs `curl_easy_perform` on a thread off the cooperative pool and
/// resumes the caller when done. Easy handles are reused (`CurlHandlePool`), so the requests of a run
/// share one kept-alive connection and TLS session. TLS verification is always on; proxies come from the usual environment
/// variables; `Expect: 100-continue` is disabled (libcurl would otherwise stall 1 s on bodies > 1 MiB).
package struct CurlHTTPClient: Sendable {
    /// Transfer settings.
    package struct Configuration: Sendable {
        package var connectTimeout: Duration
        /// Abort when fewer than `lowSpeedBytes` per second move for `lowSpeedTime`.
        package var lowSpeedBytes: Int
        package var lowSpeedTime: Duration
        /// Bound on a whole exchange; nil for none.
        package var totalTimeout: Duration?
        /// A PEM bundle of extra CA certificates to trust (a private CA).
        package var caCertificatePath: String?
        /// The largest response body read whole (`send`); a larger one ends the transfer with
        /// `HTTPTransportError.Kind.responseTooLarge`. Streamed responses (`stream`) are not bounded here:
        /// their consumer bounds each event.
        package var maxResponseBytes: Int

        /// The default `maxResponseBytes`: 4 MiB, as large as the largest WebSocket message the client
        /// accepts. A protocol answer is far smaller: the result of a 172-book shelf is 80 KB.
        package static let defaultMaxResponseBytes = 4 << 20

        package init(
            connectTimeout: Duration = .seconds(10), lowSpeedBytes: Int = 1, lowSpeedTime: Duration = .seconds(30),
            totalTimeout: Duration? = nil, caCertificatePath: String? = nil, maxResponseBytes: Int = defaultMaxResponseBytes
        ) {
            self.connectTimeout = connectTimeout
            self.lowSpeedBytes = lowSpeedBytes
            self.lowSpeedTime = lowSpeedTime
            self.totalTimeout = totalTimeout
            self.caCertificatePath = caCertificatePath
            self.maxResponseBytes = maxResponseBytes
        }
    }

    package let configuration: Configuration
    private let handles = CurlHandlePool()

    package init(configuration: Configuration = .init()) {
        _ = Self.globalInit
        self.configuration = configuration
    }

    private static let globalInit: Int = Int(curl_global_init(Int(CURL_GLOBAL_DEFAULT)).rawValue)

    /// Performs the request. `uploadProgress(sent, total)` is called from the transfer thread.
    /// Task cancellation aborts the transfer.
    package func send(
        _ request: HTTPRequestData, uploadProgress: (@Sendable (Int, Int) -> Void)? = nil
    ) async throws(HTTPTransportError) -> HTTPResponseData {
        try await perform(CurlTransfer(request: request, configuration: configuration, uploadProgress: uploadProgress))
    }

    /// Runs `transfer` on a transfer thread with a pooled handle; task cancellation aborts it.
    fileprivate func perform(_ transfer: CurlTransfer) async throws(HTTPTransportError) -> HTTPResponseData {
        let handles = self.handles
        let result: Result<HTTPResponseData, HTTPTransportError> = await withTaskCancellationHandler {
            await TransferThreads.shared.run {
                guard let handle = handles.take() else {
                    return .failure(.init(kind: .other, message: "libcurl could not start a transfer"))
                }
                let result = transfer.perform(handle.pointer)
                handles.give(back: handle, reusable: (try? result.get()) != nil)
                return result
            }
        } onCancel: {
            transfer.cancel()
        }
        return try result.get()
    }
}

extension CurlHTTPClient {
    /// Performs a request whose response is consumed as it arrives (an event stream): `sink` gets the
    /// status and headers once, before the first body byte, then the body bytes chunk by chunk, on the
    /// transfer thread. Returns the status when the response ends. No low-speed or total limit applies
    /// (the caller watches for silence); task cancellation aborts the transfer within about a second.
    package func stream(_ request: HTTPRequestData, into sink: HTTPStreamSink) async throws(HTTPTransportError) -> Int {
        var streaming = configuration
        streaming.lowSpeedBytes = 0
        streaming.totalTimeout = nil
        return try await perform(CurlTransfer(request: request, configuration: streaming, uploadProgress: nil, sink: sink)).status
    }
}

/// Receives a streamed response as it arrives, on the transfer thread.
package struct HTTPStreamSink: Sendable {
    /// The status and headers (names lower-cased), once, before the first body byte.
    package var head: @Sendable (Int, [String: String]) -> Void
    /// Body bytes, as they arrive.
    package var body: @Sendable ([UInt8]) -> Void

    package init(head: @escaping @Sendable (Int, [String: String]) -> Void, body: @escaping @Sendable ([UInt8]) -> Void) {
        self.head = head
        self.body = body
    }
}

/// The state of one libcurl easy transfer, shared with its C callbacks through `userdata`.
final class CurlTransfer: @unchecked Sendable {
    // Only the transfer thread touches these (callbacks run inside curl_easy_perform on it).
    private let request: HTTPRequestData
    private let configuration: CurlHTTPClient.Configuration
    private let uploadProgress: (@Sendable (Int, Int) -> Void)?
    /// Set for a streamed response: the body goes there instead of into `responseBody`.
    private let sink: HTTPStreamSink?
    private var headDelivered = false
    private var handle: UnsafeMutableRawPointer?
    private var readOffset = 0
    private var responseBody: [UInt8] = []
    private var responseHeaders: [String: String] = [:]
    /// Set when the body passed `maxResponseBytes` (the write callback then stopped the transfer).
    private var bodyTooLarge = false
    // Touched from any thread.
    private let canceled = Atomic<Bool>(false)

    init(
        request: HTTPRequestData, configuration: CurlHTTPClient.Configuration, uploadProgress: (@Sendable (Int, Int) -> Void)?,
        sink: HTTPStreamSink? = nil
    ) {
        self.sink = sink
        self.request = request
        self.configuration = configuration
        self.uploadProgress = uploadProgress
    }

    func cancel() { canceled.store(true, ordering: .relaxed) }

    /// Runs the transfer on `handle` (reset, possibly holding a live connection from an earlier transfer).
    func perform(_ handle: UnsafeMutableRawPointer) -> Result<HTTPResponseData, HTTPTransportError> {
        self.handle = handle
        defer { self.handle = nil }
        var headerList: UnsafeMutablePointer<curl_slist>? = nil
        defer { curl_slist_free_all(headerList) }
        for (name, value) in request.headers + [("Expect", "")] {
            headerList = curl_slist_append(headerList, value.isEmpty ? "\(name):" : "\(name): \(value)")
        }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = withExtendedLifetime(self) {
            errorBuffer.withUnsafeMutableBufferPointer { errorPointer in
                let me = Unmanaged.passUnretained(self).toOpaque()
                configure(handle, headers: headerList, userdata: me, errorBuffer: errorPointer.baseAddress)
                return curl_easy_perform(handle)
            }
        }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if bodyTooLarge || code == CURLE_FILESIZE_EXCEEDED {
                let limit = Self.size(configuration.maxResponseBytes)
                return .failure(.init(kind: .responseTooLarge, message: "the server's response is larger than \(limit), the most bookscan reads"))
            }
            return .failure(Self.error(code, detail: detail, canceled: canceled.load(ordering: .relaxed)))
        }
        var status = 0
        bs_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var newConnections = 0
        bs_curl_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &newConnections)
        var response = HTTPResponseData(status: status, headers: responseHeaders, body: responseBody)
        response.newConnections = newConnections
        return .success(response)
    }

    private func configure(_ handle: UnsafeMutableRawPointer, headers: UnsafeMutablePointer<curl_slist>?, userdata: UnsafeMutableRawPointer, errorBuffer: UnsafeMutablePointer<CChar>?) {
        bs_curl_setopt_string(handle, CURLOPT_URL, request.url)
        bs_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        if request.freshConnection {
            bs_curl_setopt_long(handle, CURLOPT_FRESH_CONNECT, 1)
            bs_curl_setopt_long(handle, CURLOPT_FORBID_REUSE, 1)
        }
        bs_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
        bs_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
        if let ca = configuration.caCertificatePath { bs_curl_setopt_string(handle, CURLOPT_CAINFO, ca) }
        bs_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeout.wholeMilliseconds))
        bs_curl_setopt_long(handle, CURLOPT_LOW_SPEED_LIMIT, configuration.lowSpeedBytes)
        bs_curl_setopt_long(handle, CURLOPT_LOW_SPEED_TIME, max(1, Int(configuration.lowSpeedTime.wholeMilliseconds / 1000)))
        if let total = configuration.totalTimeout { bs_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(total.wholeMilliseconds)) }
        bs_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headers)
        bs_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
        bs_curl_setopt_write_function(handle) { pointer, size, count, userdata in
            guard let pointer, let userdata else { return 0 }
            let me = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
            let bytes = UnsafeRawBufferPointer(start: pointer, count: size * count)
            if let sink = me.sink {
                me.deliverHead(to: sink)
                sink.body(Array(bytes))
            } else {
                guard bytes.count <= me.configuration.maxResponseBytes - me.responseBody.count else {
                    me.bodyTooLarge = true
                    return 0  // libcurl ends the transfer (CURLE_WRITE_ERROR)
                }
                me.responseBody.append(contentsOf: bytes)
            }
            return size * count
        }
        bs_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, userdata)
        // A declared length past the limit ends the transfer before its body (the write callback bounds the rest).
        if sink == nil { bs_curl_setopt_off_t(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(configuration.maxResponseBytes)) }
        bs_curl_setopt_header_function(handle) { pointer, size, count, userdata in
            guard let pointer, let userdata else { return 0 }
            let me = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
            let line = String(decoding: UnsafeRawBufferPointer(start: pointer, count: size * count), as: UTF8.self)
            if line.hasPrefix("HTTP/") { me.responseHeaders.removeAll() }  // a new response (e.g. after a redirect)
            if let colon = line.firstIndex(of: ":") {
                let name = line[..<colon].lowercased()
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
                me.responseHeaders[name] = value
            }
            return size * count
        }
        bs_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, userdata)
        bs_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0)
        bs_curl_setopt_xferinfo_function(handle) { userdata, _, _, uploadTotal, uploadNow in
            guard let userdata else { return 0 }
            let me = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
            if me.canceled.load(ordering: .relaxed) { return 1 }
            if uploadTotal > 0 { me.uploadProgress?(Int(uploadNow), Int(uploadTotal)) }
            return 0
        }
        bs_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, userdata)

        switch request.method {
        case "GET": bs_curl_setopt_long(handle, CURLOPT_HTTPGET, 1)
        case "PUT":
            bs_curl_setopt_long(handle, CURLOPT_UPLOAD, 1)
            bs_curl_setopt_off_t(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(request.body?.count ?? 0))
            bs_curl_setopt_read_function(handle) { buffer, size, count, userdata in
                guard let buffer, let userdata else { return 0 }
                let me = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
                if me.canceled.load(ordering: .relaxed) { return Int(CURL_READFUNC_ABORT) }
                guard let body = me.request.body else { return 0 }
                let n = min(size * count, body.count - me.readOffset)
                guard n > 0 else { return 0 }
                body.withUnsafeBytes { source in
                    guard let base = source.baseAddress else { return }
                    UnsafeMutableRawPointer(buffer).copyMemory(from: base + me.readOffset, byteCount: n)
                }
                me.readOffset += n
                return n
            }
            bs_curl_setopt_pointer(handle, CURLOPT_READDATA, userdata)
            // A kept-alive connection the server closed meanwhile makes libcurl resend on a new one:
            // it rewinds the body through this.
            bs_curl_setopt_seek_function(handle) { userdata, offset, origin in
                guard let userdata, origin == SEEK_SET else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
                let me = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
                guard offset >= 0, offset <= me.request.body?.count ?? 0 else { return Int32(CURL_SEEKFUNC_FAIL) }
                me.readOffset = Int(offset)
                return Int32(CURL_SEEKFUNC_OK)
            }
            bs_curl_setopt_pointer(handle, CURLOPT_SEEKDATA, userdata)
        default:
            bs_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method)
            if let body = request.body {
                bs_curl_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
                // COPYPOSTFIELDS copies the bytes during this call.
                body.withUnsafeBytes { bytes in
                    _ = bs_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                }
            }
        }
    }

    /// Hands a streamed response's status and headers to its sink, once.
    private func deliverHead(to sink: HTTPStreamSink) {
        guard !headDelivered, let handle else { return }
        headDelivered = true
        var status = 0
        bs_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        sink.head(status, responseHeaders)
    }

    /// `4 MiB`, `512 KiB`, `1000 bytes`.
    private static func size(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }

    private static func error(_ code: CURLcode, detail: String, canceled: Bool) -> HTTPTransportError {
        let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        if canceled { return .init(kind: .canceled, message: "canceled") }
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .init(kind: .couldNotResolve, message: message)
        case CURLE_COULDNT_CONNECT: return .init(kind: .couldNotConnect, message: message)
        case CURLE_OPERATION_TIMEDOUT: return .init(kind: .timedOut, message: message)
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
            return .init(kind: .connectionReset, message: message)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CONNECT_ERROR:
            return .init(kind: .tlsVerification, message: message)
        case CURLE_ABORTED_BY_CALLBACK: return .init(kind: .canceled, message: "canceled")
        default: return .init(kind: .other, message: message)
        }
    }
}
