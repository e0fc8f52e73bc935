package import Foundation
import Logging

/// A one-shot check that the events WebSocket works on this path: it opens the socket of a job and
/// succeeds when a frame arrives. Adaptive runs that prefer polling use it to notice a healed network.
package struct WebSocketProbe: Sendable {
    package let api: ScanAPI

    package init(api: ScanAPI) {
        self.api = api
    }

    /// True when a frame arrived within `timeout`.
    package func probe(jobId: UUID, timeout: Duration = .seconds(3)) async -> Bool {
        var logger = Logger(label: "bookscan.probe")
        logger.logLevel = .critical
        let connector = EventSocketConnector(api: api, pingInterval: .seconds(15), logger: logger)
        let (reports, continuation) = AsyncStream<SocketReport>.makeStream()
        let socket = Task { await connector.run(connection: 1, jobId: jobId, after: 0) { continuation.yield($0) } }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            continuation.finish()
        }
        defer {
            socket.cancel()
            timer.cancel()
        }
        for await report in reports {
            switch report {
            case .message: return true
            case .ended: return false
            case .opened: continue
            }
        }
        return false
    }
}
