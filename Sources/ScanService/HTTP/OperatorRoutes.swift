import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ScanProtocol

/// The operator's routes: `GET /metrics` (Prometheus text format, behind the token when one is
/// set) and `GET /openapi.yaml` (the OpenAPI 3.1 document of protocol v1, compiled into the binary).
struct OperatorRoutes: Sendable {
    let store: any JobStore
    let metrics: ServiceMetrics

    /// The Prometheus text exposition format's content type.
    static let metricsMediaType = "text/plain; version=0.0.4; charset=utf-8"
    static let openAPIMediaType = "application/yaml"

    func register(on routes: AccessGroups) {
        routes.on(.metrics, .get) { _, _ in await self.scrape() }
        routes.on(.openAPI, .get) { _, _ in
            Response(
                status: .ok, headers: [.contentType: Self.openAPIMediaType],
                body: .init(byteBuffer: ByteBuffer(bytes: PackageResources.openapi_yaml)))
        }
    }

    /// Jobs by state are read from the store at each scrape (on a database: every instance's jobs);
    /// when the store does not answer, the last counts stay and the rest is still served.
    private func scrape() async -> Response {
        if let counts = try? await store.countByState() { metrics.setJobCounts(counts) }
        return Response(status: .ok, headers: [.contentType: Self.metricsMediaType], body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
    }
}
