import Foundation
package import Logging
import ScanClient
import ScanEngine
package import ScanProtocol
package import ScanService

extension Logger {
    /// A logger that prints only what is at least `level` (critical: nothing in a passing test).
    package static func quiet(_ label: String, level: Logger.Level = .critical) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = level
        return logger
    }
}

extension EmbeddedScanService {
    /// Starts an embedded service on an ephemeral loopback port that logs nothing below `level`.
    /// Unless `readsTitles`, the service only finds boxes: the synthetic shelves of transport and
    /// service tests carry no text, and reading every spine in every direction would only load the machine.
    package static func startQuietly(
        _ configuration: ServiceConfiguration = .init(), level: Logger.Level = .critical, readsTitles: Bool = false
    ) async throws -> EmbeddedScanService {
        var configuration = configuration
        if !readsTitles { configuration.engine.titles = .off }
        return try await start(configuration: configuration, logger: .quiet("test.service", level: level))
    }

    /// `GET /healthz` of this service, decoded.
    package func health() async throws -> HealthStatus {
        try await ServiceHealth.fetch(baseURL: baseURL)
    }
}

/// Reads a running service's `/healthz`.
package enum ServiceHealth {
    /// `GET {baseURL}/healthz`, decoded.
    package static func fetch(baseURL: String) async throws -> HealthStatus {
        let response = try await CurlHTTPClient().send(HTTPRequestData(method: "GET", url: baseURL + Routes.health))
        return try WireCoding.decode(HealthStatus.self, from: Data(response.body))
    }
}
