/// What one events connection writes, in order, with heartbeat ticks queued among its frames: one
/// job's subscription (`JobSubscription`) or a multiplexed set (`SubscriptionSet`).
protocol EventFeed: Sendable {
    associatedtype Frame: EventFeedFrame
    /// The frames to write; finishes when the feed ends.
    var frames: AsyncStream<Frame> { get }
    /// Queues a heartbeat among the frames.
    func tick()
}

/// A frame of an `EventFeed`: a job event, or something else the connection writes.
protocol EventFeedFrame: Sendable {
    /// Whether this frame is a job event (not a heartbeat or a subscription notice).
    var isEvent: Bool { get }
}

extension JobSubscription: EventFeed {
    func tick() { continuation.yield(.heartbeat) }
}

extension SubscriptionSet: EventFeed {}

extension OutgoingFrame: EventFeedFrame {
    var isEvent: Bool {
        if case .event = self { return true }
        return false
    }
}

extension SubscriptionSet.Frame: EventFeedFrame {
    var isEvent: Bool {
        if case .event = self { return true }
        return false
    }
}
