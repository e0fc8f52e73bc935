import ArgumentParser
import Foundation
import Logging
import ScanClient
import ScanEngine
import ScanService
import SpineReading

/// Where the scans go: the configured server, or an embedded service started on loopback.
struct ServiceEndpoint {
    let baseURL: String
    let token: String?
    let embedded: EmbeddedScanService?

    /// `--server` beats `BOOKSCAN_SERVER`; with neither, an embedded service starts in-process.
    static func resolve(server: String?, token: String?, workers: Int? = nil) async throws -> ServiceEndpoint {
        let environment = EnvironmentSettings()
        let token = token ?? environment.token
        if let server = server ?? environment.server {
            return ServiceEndpoint(baseURL: server, token: token, embedded: nil)
        }
        var logger = Logger(label: "bookscan.embedded")
        logger.logLevel = .error
        var configuration = ServiceConfiguration(port: 0)
        if let workers { configuration.workers = workers }
        if environment.titleReadingOff {
            configuration.readsTitles = false
        }
        let service: EmbeddedScanService
        do {
            service = try await EmbeddedScanService.start(configuration: configuration, logger: logger)
        } catch let error as SpineReadingError {
            FileHandle.standardError.write(Data("bookscan: embedded scan service: \(error)\n".utf8))
            throw ExitCode(ExitStatus.ocrUnavailable.rawValue)
        }
        return ServiceEndpoint(baseURL: service.baseURL, token: nil, embedded: service)
    }

    func stop() async { await embedded?.stop() }
}
