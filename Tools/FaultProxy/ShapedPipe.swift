import BookscanBase
import NIOCore

/// One direction of a slow link: every chunk is released after `latency`, and no faster than
/// `bytesPerSecond` (serialised first, then delayed), always in order. Lives on one event loop.
final class ShapedPipe {
    private let eventLoop: any EventLoop
    private let latency: TimeAmount
    private let bytesPerSecond: Int?
    private let write: (ByteBuffer) -> Void
    private var queue: [(release: NIODeadline, buffer: ByteBuffer)] = []
    private var nextFree = NIODeadline.uptimeNanoseconds(0)
    private var drainScheduled = false
    private var whenEmpty: (() -> Void)?

    init(eventLoop: any EventLoop, latency: Duration, bytesPerSecond: Int?, write: @escaping (ByteBuffer) -> Void) {
        self.eventLoop = eventLoop
        self.latency = .nanoseconds(latency.wholeNanoseconds)
        self.bytesPerSecond = bytesPerSecond.map { max(1, $0) }
        self.write = write
    }

    var isEmpty: Bool { queue.isEmpty }

    /// The smallest piece a limited pipe releases at once.
    static let minimumChunk = 16

    func enqueue(_ buffer: ByteBuffer) {
        var buffer = buffer
        let now = NIODeadline.now()
        // A twentieth of a second's worth at a time (at least `minimumChunk` bytes): a slow link
        // passes a steady trickle, not a burst every few seconds.
        let chunkSize = max(Self.minimumChunk, (bytesPerSecond ?? Int.max / 2) / 20)
        while buffer.readableBytes > 0, let chunk = buffer.readSlice(length: min(chunkSize, buffer.readableBytes)) {
            var release = now + latency
            if let bytesPerSecond {
                let start = max(nextFree, now)
                nextFree = start + .nanoseconds(Int64(chunk.readableBytes) * 1_000_000_000 / Int64(bytesPerSecond))
                release = nextFree + latency
            }
            queue.append((release, chunk))
        }
        scheduleDrain()
    }

    /// Runs `body` once everything queued has been written (at once when nothing is queued).
    func afterDrain(_ body: @escaping () -> Void) {
        if queue.isEmpty { body() } else { whenEmpty = body }
    }

    private func scheduleDrain() {
        guard !drainScheduled, let first = queue.first else { return }
        drainScheduled = true
        eventLoop.assumeIsolated().scheduleTask(deadline: first.release) { self.drain() }
    }

    private func drain() {
        drainScheduled = false
        let now = NIODeadline.now()
        while let first = queue.first, first.release <= now {
            queue.removeFirst()
            write(first.buffer)
        }
        if queue.isEmpty, let whenEmpty {
            self.whenEmpty = nil
            whenEmpty()
        }
        scheduleDrain()
    }
}
