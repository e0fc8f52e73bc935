/// Which of a decode's `JPEGDecodeLimits` a JPEG went over.
package enum JPEGLimitExceeded: Sendable, Equatable, CustomStringConvertible {
    /// The JPEG has `found` scans (at least that many when libjpeg stopped it mid-decode), over `limit`.
    case scans(found: Int, limit: Int)
    /// Decoding needs `needed` bytes (its coefficient buffer, or all it holds where that is what is limited), over `limit`.
    case memory(needed: Int, limit: Int)
    /// The decode was still running after `limit`.
    case time(limit: Duration)
    /// The JPEG is arithmetic-coded (see `JPEGDecodeLimits.allowsArithmeticCoding`).
    case arithmeticCoding

    package var description: String {
        switch self {
        case .scans(let found, let limit):
            "it has \(found > limit + 1 ? "\(found)" : "more than \(limit)") scans, over the limit of \(limit); a progressive photo has about 10"
        case .memory(let needed, let limit):
            "decoding it needs \(Self.megabytes(needed)) of memory, over the limit of \(Self.megabytes(limit))"
        case .time(let limit):
            "decoding it ran longer than its time limit (\(limit))"
        case .arithmeticCoding:
            "it is arithmetic-coded, which no camera writes; save it again as an ordinary (Huffman-coded) JPEG"
        }
    }

    /// Bytes as whole megabytes (10⁶), rounded up, so a need just over a limit never reads as equal to it.
    static func megabytes(_ bytes: Int) -> String {
        bytes < 1_000_000 ? "\(bytes) bytes" : "\((bytes + 999_999) / 1_000_000) MB"
    }
}
