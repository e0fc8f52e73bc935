import BookscanBase
import Crypto
import Foundation
import Hummingbird
import HTTPTypes
import ImageKit
import NIOCore
import NIOPosix
import ScanProtocol
import Synchronization

/// The HTTP side of protocol v1: upload, status, cancel, limits, health, and the plain-HTTP answer
/// of the events route when a request is not (or may not be) upgraded.
final class ScanRoutes: Sendable {
    let configuration: ServiceConfiguration
    let store: any JobStore
    let metrics: ServiceMetrics
    let version: String
    let ocr: OCREngineStatus?
    /// How the event streams' frames reach their writers (`EventDelivery`), chosen at start-up.
    let delivery: any EventDelivery
    private let uploadBudget: UploadBudget
    /// The share of the upload budget that slow bodies may hold beyond their first step (`BodyRateFloor.slowShare`).
    private let slowBudget: UploadBudget?
    private let uploadValidator: UploadValidator

    /// `validationCheckpoint`: see `UploadValidator.checkpoint`.
    init(
        configuration: ServiceConfiguration, store: any JobStore, metrics: ServiceMetrics, version: String, ocr: OCREngineStatus? = nil,
        delivery: any EventDelivery = DirectEventDelivery(), validationCheckpoint: @escaping @Sendable () -> Void = {}
    ) {
        self.ocr = ocr
        self.delivery = delivery
        self.configuration = configuration
        self.uploadBudget = UploadBudget(capacity: configuration.uploadMemory)
        self.slowBudget = configuration.bodyRateFloor.map { UploadBudget(capacity: Int(Double(configuration.uploadMemory) * $0.slowShare)) }
        self.uploadValidator = UploadValidator(configuration: configuration, budget: uploadBudget, checkpoint: validationCheckpoint)
        self.store = store
        self.metrics = metrics
        self.version = version
    }

    /// Registers every route of protocol v1 in the group of its endpoint's access (see `AccessGroups`).
    func register(on routes: AccessGroups) {
        routes.on(.scan, .put) { request, context in try await self.upload(request, context: context) }
        routes.on(.scan, .get) { _, context in try await self.status(context: context) }
        routes.on(.scan, .delete) { _, context in try await self.cancel(context: context) }
        routes.on(.events, .get) { request, context in try await self.eventsWithoutUpgrade(request, context: context) }
        routes.on(.multiplexedEvents, .get) { request, _ in try await self.multiplexedEventsWithoutUpgrade(request) }
        routes.on(.limits, .get) { _, _ in try json(.ok, self.limits) }
        routes.on(.health, .get) { _, _ in try await self.health() }
        OperatorRoutes(store: store, metrics: metrics).register(on: routes)
    }

    var limits: ServiceLimits {
        ServiceLimits(
            maxBytes: configuration.maxBytes, maxPixels: configuration.maxPixels,
            recommendedLongSide: configuration.recommendedLongSide,
            heartbeatSeconds: configuration.heartbeatInterval.inSeconds, jobTTLSeconds: configuration.jobTTL.inSeconds,
            maxJobsPerEventSocket: configuration.maxJobsPerEventSocket)
    }

    // MARK: PUT /v1/scans/{jobId}

    private func upload(_ request: Request, context: ScanRequestContext) async throws -> Response {
        let id = try jobId(context)
        let seqAfter = try continueAfter(request.uri.queryParameters.get(ProtocolNames.continueAfterQuery))
        let declared = request.headers[.contentLength].flatMap(Int.init)
        if let declared, declared > configuration.maxBytes { throw tooLarge(declared) }
        let bytes = try await receiveBody(request.body, declared: declared, context: context)
        guard !bytes.isEmpty else {
            throw ServiceError(.unsupportedMediaType, .unsupportedMediaType, "the body is empty; send the JPEG bytes")
        }
        guard ImageFormat.detect(bytes) == .jpeg else {
            let what = ImageFormat.detect(bytes).map { "a \($0.displayName) image" } ?? "not an image"
            throw ServiceError(.unsupportedMediaType, .unsupportedMediaType, "the body is \(what); only JPEG is accepted")
        }
        let digest = Array(SHA256.hash(data: bytes))
        let admission: Admission
        if let existing = try await store.lookup(id, digest: digest, now: Date()) {
            admission = existing
        } else {
            try await uploadValidator.validate(bytes)
            admission = try await store.admit(id: id, image: bytes, digest: digest, seqAfter: seqAfter, now: Date())
        }
        switch admission {
        case .created(let snapshot):
            metrics.uploaded(bytes: bytes.count)
            return try json(.accepted, snapshot, location: Routes.scan(id))
        case .existing(let snapshot):
            return try json(.accepted, snapshot, location: Routes.scan(id))
        case .conflict:
            throw conflict(id)
        case .queueFull:
            throw ServiceError(
                .serviceUnavailable, .queueFull, "the scan queue is full (\(store.queueCapacity) waiting); retry later",
                retryable: true, headers: [.retryAfter: "\(configuration.retryAfterSeconds)"])
        }
    }

    /// The `continueAfter` of a resubmission (0 without it); a value that is not a seq is 400.
    private func continueAfter(_ text: String?) throws -> Int {
        guard let text else { return 0 }
        guard let value = Int(text), (0...WireNumbers.maxCount).contains(value) else {
            throw ServiceError(
                .badRequest, .badRequest, "\(ProtocolNames.continueAfterQuery) must be a seq from 0 to \(WireNumbers.maxCount), not \"\(text.prefix(40))\"")
        }
        return value
    }

    /// Reads the body into one array, reserving from the upload budget before it grows: first what
    /// the body rate floor guarantees within its grace (at most the declared length), then what has
    /// arrived plus one step (an eighth of it, at least `firstReservation`), capped at the declared
    /// length (else the limit), so a body that trickles holds little more than it has sent; a slow
    /// body (`BodyRateFloor.isSlow`) must also fit its growth in the slow bodies' share of the budget
    /// (`slowBudget`); stops at the byte limit. Asks for the `100 Continue` once the first reservation is made.
    /// An array, not a ByteBuffer: ByteBuffer rounds capacity up to a power of two (20 MiB → 32 MiB),
    /// which would make the budget's accounting wrong by up to half.
    private func receiveBody(_ stream: RequestBody, declared: Int?, context: ScanRequestContext) async throws -> [UInt8] {
        let maxBytes = configuration.maxBytes
        let cap = min(declared ?? maxBytes, maxBytes)
        var reserved = 0
        var slowReserved = 0
        defer {
            uploadBudget.release(reserved)
            slowBudget?.release(slowReserved)
        }
        let start = ContinuousClock.now
        var body: [UInt8] = []
        if let declared, declared > 0 {
            let first = min(declared, max(Self.firstReservation, configuration.bodyRateFloor.map { $0.guaranteedBytes } ?? declared))
            guard uploadBudget.reserve(first) else { throw busy() }
            reserved = first
            body.reserveCapacity(first)
        }
        context.continueBody()
        do {
            for try await chunk in stream {
                let needed = body.count + chunk.readableBytes
                guard needed <= maxBytes else { throw tooLarge(nil) }
                if needed > reserved {
                    let target = max(needed, min(cap, needed + max(needed / 8, Self.firstReservation)))
                    if let floor = configuration.bodyRateFloor, let slowBudget,
                        floor.isSlow(received: body.count, elapsed: ContinuousClock.now - start)
                    {
                        guard slowBudget.reserve(target - reserved) else { throw busy() }
                        slowReserved += target - reserved
                    }
                    guard uploadBudget.reserve(target - reserved) else { throw busy() }
                    reserved = target
                    body.reserveCapacity(target)
                }
                chunk.withUnsafeReadableBytes { body.append(contentsOf: $0) }
            }
        } catch let slow as BodyRateGuard.BodyTooSlow {
            let seconds = Int(slow.elapsed.inSeconds.rounded())
            throw ServiceError(
                .requestTimeout, .badRequest,
                "the body arrived too slowly: \(slow.received) bytes in \(seconds) s, under the floor of \(slow.floor.bytesPerSecond) bytes/s; retry on a faster link")
        }
        return body
    }

    /// The first and smallest step an upload reserves from the budget.
    static let firstReservation = 64 * 1024

    private func busy() -> ServiceError { uploadBudget.busy(retryAfterSeconds: configuration.retryAfterSeconds) }

    private func tooLarge(_ declared: Int?) -> ServiceError {
        let size = declared.map { "\($0) bytes" } ?? "the body"
        return ServiceError(.contentTooLarge, .payloadTooLarge, "\(size) is over the limit of \(configuration.maxBytes) bytes")
    }

    private func conflict(_ id: UUID) -> ServiceError {
        ServiceError(.conflict, .jobConflict, "job \(id.uuidString.lowercased()) already exists with a different image")
    }

    // MARK: GET / DELETE /v1/scans/{jobId}

    private func status(context: some RequestContext) async throws -> Response {
        let id = try jobId(context)
        guard let snapshot = try await store.snapshot(id, now: Date()) else { throw ServiceError.notFound(id.uuidString.lowercased()) }
        return try json(.ok, snapshot)
    }

    private func cancel(context: some RequestContext) async throws -> Response {
        let id = try jobId(context)
        guard let snapshot = try await store.requestCancel(id, now: Date()) else { throw ServiceError.notFound(id.uuidString.lowercased()) }
        return try json(.accepted, snapshot)
    }

    /// The events route reached without a WebSocket upgrade: an event stream when the client asks
    /// for one (`Accept: text/event-stream`), else why there was no upgrade, with the right status.
    private func eventsWithoutUpgrade(_ request: Request, context: some RequestContext) async throws -> Response {
        let id = try jobId(context)
        if EventStreamWire.accepts(request.headers[.accept]) {
            let after = EventStreamWire.resumeAfter(
                lastEventID: HTTPField.Name(EventStreamWire.lastEventIDHeader).flatMap { request.headers[$0] },
                afterQuery: request.uri.queryParameters.get(ProtocolNames.afterQuery))
            let stream = EventStream(configuration: configuration, store: store, metrics: metrics, delivery: delivery)
            // HEAD: the head a stream would have, and no stream (no subscriber slot taken).
            if request.method == .head { return try await stream.head(for: id) }
            return try await stream.response(for: id, after: after)
        }
        switch try await store.checkedSubscriberRoom(id, limit: configuration.maxSubscribersPerJob) {
        case .unknownJob:
            throw ServiceError.notFound(id.uuidString.lowercased())
        case .full(let subscribers):
            throw ServiceError(.tooManyRequests, .tooManySubscribers, "job has \(subscribers) open event sockets", retryable: true)
        case .available:
            break
        }
        throw ServiceError(
            .upgradeRequired, .badRequest, "this route is a WebSocket or an event stream; send an upgrade request or Accept: \(EventStreamWire.mediaType)",
            headers: [.upgrade: "websocket"])
    }

    /// The multiplexed events route reached without an upgrade: an event stream of the `jobs=` list
    /// when asked for one, else why there was no upgrade.
    private func multiplexedEventsWithoutUpgrade(_ request: Request) async throws -> Response {
        let query = request.uri.queryParameters.get(ProtocolNames.jobsQuery) ?? ""
        guard let cursors = JobCursor.list(fromQuery: query) else {
            throw ServiceError(.badRequest, .badRequest, "\(ProtocolNames.jobsQuery)= must list job ids, each optionally with :after (ID,ID:N,…)")
        }
        if EventStreamWire.accepts(request.headers[.accept]) {
            let stream = MultiplexedEventStream(configuration: configuration, store: store, metrics: metrics, delivery: delivery)
            // HEAD: the head a stream would have, and no stream (no subscriber slot taken).
            if request.method == .head { return try stream.head(for: cursors) }
            return try stream.response(for: cursors)
        }
        throw ServiceError(
            .upgradeRequired, .badRequest, "this route is a WebSocket or an event stream; send an upgrade request or Accept: \(EventStreamWire.mediaType)",
            headers: [.upgrade: "websocket"])
    }

    /// `/healthz`: 200 `ok`; with the shared store and its database unreachable, 503 `degraded` with
    /// `database: unavailable` (the counts are then unknown: 0).
    private func health() async throws -> Response {
        let counts: [JobState: Int]?
        do {
            counts = try await store.countByState()
        } catch where DatabaseFailure.matches(error) {
            counts = nil
        }
        let shared = configuration.database != nil
        return try json(
            counts == nil ? .serviceUnavailable : .ok,
            HealthStatus(
                status: counts == nil ? "degraded" : "ok", version: version, jobsQueued: counts?[.queued, default: 0] ?? 0,
                jobsRunning: counts?[.running, default: 0] ?? 0, jobsHeld: counts?.values.reduce(0, +) ?? 0,
                scansStarted: metrics.scansStarted.load(ordering: .relaxed), ocr: ocr, store: shared ? "postgres" : "memory",
                instance: configuration.database?.instance, database: shared ? (counts == nil ? "unavailable" : "ok") : nil))
    }

    // MARK: helpers

    private func jobId(_ context: some RequestContext) throws -> UUID {
        let text = context.parameters.get(Routes.jobIdParameter) ?? ""
        guard let id = UUID(uuidString: text) else { throw ServiceError.badJobId(text) }
        return id
    }
}

/// A JSON response in the wire encoding.
func json<T: Encodable>(_ status: HTTPResponse.Status, _ value: T, location: String? = nil) throws -> Response {
    var headers: HTTPFields = [.contentType: "application/json"]
    if let location { headers[.location] = location }
    let data = try WireCoding.encode(value)
    return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
}

