/// One connection's end of the write loop (`EventWriteLoop`): writes each frame of its feed and says
/// whether the stream goes on, and ends the connection (`EventSocketWriter`, `EventStreamWriter`).
protocol EventFrameWriter<Frame> {
    associatedtype Frame: EventFeedFrame
    /// Writes `frame`; what the loop does next.
    mutating func write(_ frame: Frame) async throws -> EventWriteOutcome
    /// Ends the connection once its writing is over: `complete` after the frame that completed its
    /// stream, else when the feed stopped (the connection or the service going away).
    mutating func finish(complete: Bool) async throws
    /// Ends the connection at once, without its normal end (a WebSocket closes with 1011 and
    /// `reason`; an event stream throws, so its response ends without the final chunk).
    mutating func abort(reason: String) async throws
}

/// What the write loop does after a frame.
enum EventWriteOutcome: Sendable, Equatable {
    /// Write the next frame.
    case continues
    /// The stream is complete: finish the connection normally.
    case ends
    /// The connection was already ended (`EventFrameWriter.abort`): stop.
    case closed
}
