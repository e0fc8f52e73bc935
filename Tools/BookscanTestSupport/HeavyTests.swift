/// Tests that load a 2-core machine heavily (several `bookscan serve` children, a database, full-size
/// OCR scans of the sample photos) and the
/// one that a loaded machine distorts (the fault campaign, whose oracle includes how each job was
/// classified) take turns: each runs its body under this process-wide gate. Everything else still runs
/// beside them. (On CI the campaign saw a job stretch from 1 s to 12 s while PostgreSQL-backed
/// instances started next to it, and misclassified it.)
package actor HeavyTests {
    package static let gate = HeavyTests()

    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` once no other heavy test is running.
    package func run<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        }
        busy = true
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await body()
    }
}
