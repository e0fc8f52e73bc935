import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOSSL
import NIOWebSocket
import ScanProtocol
import WSClient

/// What one events socket reports to the tracker driver.
enum SocketReport: Sendable {
    case opened(connection: Int)
    case message(connection: Int, ServerMessage)
    case ended(connection: Int, SocketEnd)
}

/// Opens the events WebSocket with WSClient (client pings on), decodes frames into protocol
/// messages and reports everything that happens, including why it ended.
struct EventSocketConnector: Sendable {
    let api: ScanAPI
    let pingInterval: Duration
    let logger: Logger
    /// Whether the upload has been accepted. Before that a refused upgrade is the upgrade racing
    /// ahead of the upload (the job does not exist yet): it is reported without spending a probe.
    var uploadAccepted: @Sendable () -> Bool = { true }
    /// Whether to probe a refused upgrade for its status (a plain GET of the route); the tracker turns
    /// it off when the event stream's request will tell.
    var probesRefusals = true

    /// Runs one connection until it ends or the task is canceled (then returns at once); never throws.
    func run(connection: Int, jobId: UUID, after: Int, report: @escaping @Sendable (SocketReport) -> Void) async {
        await runAbandoningOnCancel { await connect(connection: connection, jobId: jobId, after: after, report: report) }
    }

    private func connect(connection: Int, jobId: UUID, after: Int, report: @escaping @Sendable (SocketReport) -> Void) async {
        var configuration = WebSocketClientConfiguration()
        configuration.autoPing = .enabled(timePeriod: pingInterval)
        configuration.maxFrameSize = 1 << 22
        if let token = api.token { configuration.additionalHeaders[.authorization] = "Bearer \(token)" }
        let opened = OpenFlag()
        do {
            let closeFrame = try await WebSocketClient.connect(
                url: api.eventsURL(jobId: jobId, after: after), configuration: configuration, tlsConfiguration: tlsConfiguration,
                logger: logger
            ) { inbound, outbound, _ in
                opened.set()
                report(.opened(connection: connection))
                try await outbound.write(.text(ClientHello.frame))
                for try await message in inbound.messages(maxSize: 1 << 22) {
                    guard case .text(let text) = message, let decoded = try? WireCoding.decode(ServerMessage.self, from: Data(text.utf8))
                    else {
                        report(.ended(connection: connection, .protocolError))
                        try await outbound.close(.protocolError, reason: "undecodable message")
                        return
                    }
                    report(.message(connection: connection, decoded))
                }
            }
            report(.ended(connection: connection, .closed(code: closeFrame.map { Int($0.closeCode.code) })))
        } catch let error as WebSocketClientError where error == .webSocketUpgradeFailed {
            let status = probesRefusals && uploadAccepted() ? await api.probeEventsRoute(jobId: jobId) : nil
            report(.ended(connection: connection, .refused(status: status)))
        } catch let error as WebSocketClientError where error == .serverProtocolError || error == .serverSentMessageTooLarge {
            report(.ended(connection: connection, .protocolError))
        } catch {
            if Task.isCancelled { return }
            report(.ended(connection: connection, opened.isSet ? .closed(code: nil) : .unreachable))
        }
    }
}

extension EventSocketConnector {
    /// Certificates are always verified (hostname included); `--cacert` replaces the system roots
    /// with a private CA, as it does for libcurl's uploads and polls.
    var tlsConfiguration: TLSConfiguration { Self.tlsConfiguration(for: api) }

    /// The TLS configuration of every events socket `api` opens.
    static func tlsConfiguration(for api: ScanAPI) -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        if let path = api.http.configuration.caCertificatePath { tls.trustRoots = .file(path) }
        return tls
    }
}

extension WebSocketErrorCode {
    /// The numeric close code.
    var code: UInt16 {
        switch self {
        case .normalClosure: 1000
        case .goingAway: 1001
        case .protocolError: 1002
        case .unacceptableData: 1003
        case .dataInconsistentWithMessage: 1007
        case .policyViolation: 1008
        case .messageTooLarge: 1009
        case .missingExtension: 1010
        case .unexpectedServerError: 1011
        case .unknown(let value): value
        }
    }
}
