import BookscanBase

/// The slowest a request body may arrive: once `grace` has passed since its request head, the body
/// must have averaged `bytesPerSecond` or more, or the request is cut off (408). A trickling upload
/// then cannot hold its share of the upload budget (or a connection) for longer than a real one on
/// a slow link would. Above the floor, a body that averages under `healthyBytesPerSecond` after the
/// grace is slow: what it reserves from the upload budget beyond its first step must also fit in
/// `slowShare` of the budget, shared by every slow body, or it is refused (503, retryable). So
/// bodies just over the floor never hold the whole budget, while a real phone upload (20 MiB at
/// 100 KiB/s or faster) is never slow and never refused for it.
public struct BodyRateFloor: Sendable, Equatable {
    /// Average bytes per second, counted from the request head.
    public var bytesPerSecond: Int
    /// How long a body may arrive at any pace (connection setup, TCP slow start, `100 Continue`).
    public var grace: Duration

    /// Average bytes per second under which a body counts as slow (see `slowShare`).
    public var healthyBytesPerSecond: Int
    /// The fraction of the upload budget all slow bodies together may hold beyond their first steps.
    public var slowShare: Double

    /// 64 KiB/s: half the slowest real phone upload this must never refuse (100 KiB/s).
    public static let standardHealthyBytesPerSecond = 64 * 1024
    /// Half the upload budget.
    public static let standardSlowShare = 0.5

    public init(
        bytesPerSecond: Int, grace: Duration, healthyBytesPerSecond: Int = standardHealthyBytesPerSecond, slowShare: Double = standardSlowShare
    ) {
        self.bytesPerSecond = max(1, bytesPerSecond)
        self.grace = grace
        self.healthyBytesPerSecond = max(self.bytesPerSecond, healthyBytesPerSecond)
        self.slowShare = min(1, max(0, slowShare))
    }

    /// Whether a body that has delivered `received` bytes `elapsed` after it started is slow.
    func isSlow(received: Int, elapsed: Duration) -> Bool {
        elapsed > grace && Double(received) < Double(healthyBytesPerSecond) * elapsed.inSeconds
    }

    /// 8 KiB/s (64 kbit/s, below a weak 2G/EDGE link) averaged, after 10 s: a 20 MiB photo may take 42 minutes.
    public static let standard = BodyRateFloor(bytesPerSecond: 8 * 1024, grace: .seconds(10))

    /// Bytes a body that keeps to the floor has delivered when the grace ends.
    var guaranteedBytes: Int { Int(Double(bytesPerSecond) * grace.inSeconds) }

    /// Time from the request head by which `received` bytes stop being enough.
    func deadline(received: Int) -> Duration {
        max(grace, .seconds(Double(received) / Double(bytesPerSecond)))
    }
}
