/// Test seam: the events write loop's delivery with injected misbehaviour. `silentSockets`: an event
/// stream carries nothing after its opening (its frames, heartbeats included, are drained unwritten
/// until its feed ends; a WebSocket is silenced at its upgrade, `FaultyEventUpgrades`);
/// `dropSocketAfterEvents`: each connection ends abruptly after that many events (`DroppingEventWriter`).
struct FaultyEventDelivery: EventDelivery {
    let silent: Bool
    let dropAfter: Int?

    func frames<Frame: Sendable>(_ frames: AsyncStream<Frame>) -> AsyncStream<Frame> {
        guard silent else { return frames }
        return AsyncStream(unfolding: {
            for await _ in frames {}
            return nil
        })
    }

    func writer<Writer: EventFrameWriter>(_ writer: Writer) -> any EventFrameWriter<Writer.Frame> {
        guard let dropAfter else { return writer }
        return DroppingEventWriter(writer, after: dropAfter)
    }
}
