import HTTPTypes
import NIOConcurrencyHelpers
import ScanProtocol

/// Bytes all uploads being received or checked may hold at once. Each upload reserves what it buffers before
/// buffering it, and what its JPEG check decodes (`UploadValidator`) before decoding; one that cannot is
/// refused (503, retry later) instead of growing the heap, so many concurrent uploads cost at most the
/// budget, whatever their number, declared size or header.
final class UploadBudget: Sendable {
    let capacity: Int
    private let used = NIOLockedValueBox<Int>(0)

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Takes `bytes` from the budget, or returns false (taking nothing) when they do not fit.
    func reserve(_ bytes: Int) -> Bool {
        used.withLockedValue { used in
            guard bytes <= capacity - used else { return false }
            used += bytes
            return true
        }
    }

    func release(_ bytes: Int) {
        used.withLockedValue { $0 = max(0, $0 - bytes) }
    }

    /// The answer to an upload that does not fit now: 503 with Retry-After.
    func busy(retryAfterSeconds: Int) -> ServiceError {
        ServiceError(
            .serviceUnavailable, .queueFull, "the service is receiving too many uploads at once; retry later", retryable: true,
            headers: [.retryAfter: "\(retryAfterSeconds)"])
    }
}
