import NIOConcurrencyHelpers

/// Bytes all uploads being received may hold at once. Each upload reserves what it buffers before
/// buffering it; one that cannot is refused (503, retry later) instead of growing the heap, so
/// many concurrent bodies cost at most the budget, whatever their number or declared size.
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

    var inUse: Int { used.withLockedValue { $0 } }
}
