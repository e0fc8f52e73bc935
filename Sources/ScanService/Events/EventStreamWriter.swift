import Hummingbird
import NIOCore

/// The write loop's event stream end (`EventWriteLoop`): each encoded frame as a chunk of the
/// response; the response ends once the writing is over, or is cut off (`abort`) by an error.
struct EventStreamWriter<Encoder: EventFrameEncoder>: EventFrameWriter {
    var encoder: Encoder
    var body: any ResponseBodyWriter
    let metrics: ServiceMetrics

    /// Ends a stream without its terminal chunk (`abort`).
    struct Aborted: Error {
        let reason: String
    }

    mutating func write(_ frame: Encoder.Frame) async throws -> EventWriteOutcome {
        let encoded = try encoder.encode(frame)
        try await body.write(ByteBuffer(string: encoded.text))
        encoded.count(in: metrics, .sse)
        return encoded.endsStream ? .ends : .continues
    }

    func finish(complete: Bool) async throws {
        try await body.finish(nil)
    }

    func abort(reason: String) async throws {
        throw Aborted(reason: reason)
    }
}
