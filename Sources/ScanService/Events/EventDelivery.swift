/// What stands between a feed and its writer in the write loop (`EventWriteLoop`), chosen once at
/// start-up (`ScanServer`): nothing in the product (`DirectEventDelivery`); the injected faults of
/// `Faults/` in tests. The transports never ask which.
protocol EventDelivery: Sendable {
    /// The frames the writer is given of a feed's `frames`.
    func frames<Frame: Sendable>(_ frames: AsyncStream<Frame>) -> AsyncStream<Frame>
    /// The writer the loop writes through.
    func writer<Writer: EventFrameWriter>(_ writer: Writer) -> any EventFrameWriter<Writer.Frame>
}

/// The product's delivery: every frame of the feed, written as it is.
struct DirectEventDelivery: EventDelivery {
    func frames<Frame: Sendable>(_ frames: AsyncStream<Frame>) -> AsyncStream<Frame> { frames }
    func writer<Writer: EventFrameWriter>(_ writer: Writer) -> any EventFrameWriter<Writer.Frame> { writer }
}
