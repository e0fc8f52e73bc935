import ArgumentParser
import Foundation
import Logging
import ScanClient
import ScanService
import SpineReading

/// Where the scans go: the configured server, or an embedded service started on loopback.
struct ServiceEndpoint {
    let baseURL: String
    let token: String?
    let embedded: EmbeddedScanService?

    /// The environment variable that turns the embedded service's title reading off (`0`, `false`,
    /// `no`, `off`): scans then find books without reading them — seconds faster per photo.
    static let readTitlesVariable = "BOOKSCAN_READ_TITLES"

    /// `--server` beats `BOOKSCAN_SERVER`; with neither, an embedded service starts in-process.
    static func resolve(server: String?, token: String?, workers: Int? = nil) async throws -> ServiceEndpoint {
        let environment = ProcessInfo.processInfo.environment
        let token = token ?? environment["BOOKSCAN_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        if let server = server ?? environment["BOOKSCAN_SERVER"].flatMap({ $0.isEmpty ? nil : $0 }) {
            return ServiceEndpoint(baseURL: server, token: token, embedded: nil)
        }
        var logger = Logger(label: "bookscan.embedded")
        logger.logLevel = .error
        var configuration = ServiceConfiguration(host: "127.0.0.1", port: 0)
        if let workers { configuration.workers = workers }
        if let value = environment[Self.readTitlesVariable], ["0", "false", "no", "off"].contains(value.lowercased()) {
            configuration.ocr = nil
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
