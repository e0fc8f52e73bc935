/// Test seam (`FaultSeams.dropSocketAfterEvents`): a writer that ends its connection abruptly once it
/// has written `after` job events (over all jobs of a multiplexed connection), unless that event
/// completed the stream.
struct DroppingEventWriter<Base: EventFrameWriter>: EventFrameWriter {
    var base: Base
    let after: Int
    private var eventsSent = 0

    init(_ base: Base, after: Int) {
        self.base = base
        self.after = after
    }

    mutating func write(_ frame: Base.Frame) async throws -> EventWriteOutcome {
        let outcome = try await base.write(frame)
        guard frame.isEvent else { return outcome }
        eventsSent += 1
        guard outcome == .continues, eventsSent >= after else { return outcome }
        try await base.abort(reason: "injected fault: socket dropped")
        return .closed
    }

    mutating func finish(complete: Bool) async throws { try await base.finish(complete: complete) }

    mutating func abort(reason: String) async throws { try await base.abort(reason: reason) }
}
