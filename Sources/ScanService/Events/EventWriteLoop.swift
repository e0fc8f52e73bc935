/// The one subscription-to-writer loop of the four events transports (`EventSocket`,
/// `MultiplexedEventSocket`, `EventStream`, `MultiplexedEventStream`): a feed's frames, heartbeats
/// queued among them at the interval, written in order by the transport's writer until the stream is
/// complete, the feed ends or the connection goes. A WebSocket also waits for the client's hello
/// (or the grace period) before its first frame, while its messages are read.
enum EventWriteLoop {
    /// Writes `frames` through `writer` (both as `delivery` hands them over) until one completes the
    /// stream (then finishes the connection normally), the writer ended it, or the frames end.
    static func run<Writer: EventFrameWriter>(_ frames: AsyncStream<Writer.Frame>, to writer: Writer, delivery: any EventDelivery) async throws {
        var writer = delivery.writer(writer)
        for await frame in delivery.frames(frames) {
            switch try await writer.write(frame) {
            case .continues: continue
            case .ends:
                try await writer.finish(complete: true)
                return
            case .closed: return
            }
        }
        try await writer.finish(complete: false)
    }

    /// A WebSocket's writing: `read` processes the client's messages and signals its hello; `opening`
    /// runs first (a multiplexed socket subscribes its initial jobs); frames are written from the hello
    /// on, or from the end of the grace period when none came (so no frame rides in the same segment
    /// as the 101 response); a heartbeat is queued each interval after that. Whichever of reading,
    /// ticking and writing ends first ends the others.
    static func socket<Feed: EventFeed, Writer: EventFrameWriter & Sendable>(
        _ feed: Feed, to writer: Writer, grace: Duration, heartbeatInterval: Duration, delivery: any EventDelivery,
        opening: @escaping @Sendable () async -> Void = {},
        read: @escaping @Sendable (_ ready: AsyncStream<Void>.Continuation) async throws -> Void
    ) async throws where Writer.Frame == Feed.Frame {
        let (ready, readySignal) = AsyncStream<Void>.makeStream()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await read(readySignal) }
            group.addTask {
                await opening()
                try await Task.sleep(for: grace)
                readySignal.yield()
                while !Task.isCancelled {
                    try await Task.sleep(for: heartbeatInterval)
                    feed.tick()
                }
            }
            group.addTask {
                var gate = ready.makeAsyncIterator()
                _ = await gate.next()
                try await run(feed.frames, to: writer, delivery: delivery)
            }
            _ = try await group.next()
            group.cancelAll()
        }
    }

    /// An event stream's writing (its opening already written): a heartbeat queued each interval
    /// from the start, the frames written as they come.
    static func stream<Feed: EventFeed, Writer: EventFrameWriter>(
        _ feed: Feed, to writer: Writer, heartbeatInterval: Duration, delivery: any EventDelivery
    ) async throws where Writer.Frame == Feed.Frame {
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: heartbeatInterval)
                if Task.isCancelled { return }
                feed.tick()
            }
        }
        defer { ticker.cancel() }
        try await run(feed.frames, to: writer, delivery: delivery)
    }
}
