import NIOWebSocket
import WSCore

/// The write loop's WebSocket end (`EventWriteLoop`): each encoded frame as a text message; close
/// 1000 once the stream is complete.
struct EventSocketWriter<Encoder: EventFrameEncoder>: EventFrameWriter, Sendable {
    var encoder: Encoder
    let outbound: WebSocketOutboundWriter
    let metrics: ServiceMetrics

    mutating func write(_ frame: Encoder.Frame) async throws -> EventWriteOutcome {
        let encoded = try encoder.encode(frame)
        try await outbound.write(.text(encoded.text))
        encoded.count(in: metrics, .websocket)
        return encoded.endsStream ? .ends : .continues
    }

    func finish(complete: Bool) async throws {
        guard complete else { return }
        try await outbound.close(.normalClosure, reason: "job finished")
    }

    func abort(reason: String) async throws {
        try await outbound.close(.unexpectedServerError, reason: reason)
    }
}
