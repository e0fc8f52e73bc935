/// One open events subscriber of a job: the frames to send (replay first, then live ones), the
/// job's latest seq for heartbeats, and `end()` to unsubscribe when the socket closes.
final class JobSubscription: Sendable {
    /// Frames in seq order; finishes after the terminal event.
    let frames: AsyncStream<OutgoingFrame>
    /// Feeds heartbeat ticks into `frames`.
    let continuation: AsyncStream<OutgoingFrame>.Continuation
    private let latest: @Sendable () -> Int
    private let unsubscribe: @Sendable () -> Void

    init(
        frames: AsyncStream<OutgoingFrame>, continuation: AsyncStream<OutgoingFrame>.Continuation,
        latestSeq: @escaping @Sendable () -> Int, unsubscribe: @escaping @Sendable () -> Void
    ) {
        self.frames = frames
        self.continuation = continuation
        self.latest = latestSeq
        self.unsubscribe = unsubscribe
    }

    /// The job's newest event seq (what heartbeats announce).
    var latestSeq: Int { latest() }

    /// Stops receiving live frames.
    func end() { unsubscribe() }
}
