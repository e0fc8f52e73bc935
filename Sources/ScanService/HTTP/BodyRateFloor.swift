import BookscanBase

/// The slowest a request body may arrive: once `grace` has passed since its request head, the body
/// must have averaged `bytesPerSecond` or more, or the request is cut off (408). A trickling upload
/// then cannot hold its share of the upload budget (or a connection) for longer than a real one on
/// a slow link would.
public struct BodyRateFloor: Sendable, Equatable {
    /// Average bytes per second, counted from the request head.
    public var bytesPerSecond: Int
    /// How long a body may arrive at any pace (connection setup, TCP slow start, `100 Continue`).
    public var grace: Duration

    public init(bytesPerSecond: Int, grace: Duration) {
        self.bytesPerSecond = max(1, bytesPerSecond)
        self.grace = grace
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
