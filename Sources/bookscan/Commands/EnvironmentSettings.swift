import Foundation

/// The settings bookscan takes from its environment, each variable named and read once here; an
/// empty value counts as unset. A flag beats the environment, which beats the config file.
struct EnvironmentSettings {
    static let tokenVariable = "BOOKSCAN_TOKEN"
    static let serverVariable = "BOOKSCAN_SERVER"
    static let databaseURLVariable = "BOOKSCAN_DATABASE_URL"
    /// Turns the embedded service's title reading off (`0`, `false`, `no`, `off`): scans then find
    /// books without reading them, seconds faster per photo.
    static let readTitlesVariable = "BOOKSCAN_READ_TITLES"

    let environment: [String: String]

    init(_ environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
    }

    /// The bearer token (`BOOKSCAN_TOKEN`).
    var token: String? { value(Self.tokenVariable) }
    /// The scan service's URL (`BOOKSCAN_SERVER`); none: the embedded service.
    var server: String? { value(Self.serverVariable) }
    /// The shared PostgreSQL store of `serve` (`BOOKSCAN_DATABASE_URL`).
    var databaseURL: String? { value(Self.databaseURLVariable) }
    /// Whether `BOOKSCAN_READ_TITLES` turns title reading off.
    var titleReadingOff: Bool { value(Self.readTitlesVariable).map { ["0", "false", "no", "off"].contains($0.lowercased()) } ?? false }

    private func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
}
