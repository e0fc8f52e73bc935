import CJPEGShim

/// What one JPEG decode may cost at most: scans, libjpeg's whole-image memory, and time. Every decode has
/// limits (`standard` unless the caller passes tighter ones), so a small file cannot make libjpeg walk a
/// huge image hundreds of times (a progressive "scan bomb") or allocate a huge coefficient buffer.
package struct JPEGDecodeLimits: Sendable, Equatable {
    /// Most scans a decoded JPEG may have. libjpeg walks every block of the image in every scan (also at
    /// 1/8 scale, also for a scan with no data), so the scans multiply the cost of the size. A progressive
    /// photo has about 10 (libjpeg's standard progression: 10 for colour, 6 for gray; Photoshop 3 to 5);
    /// djpeg's `-maxscans` guards the same way.
    package static let defaultMaxScans = 32
    /// Largest whole-image coefficient buffer (bytes): what a progressive (or any multi-scan) JPEG makes
    /// libjpeg allocate at full size, whatever the DCT scale: 2 bytes per coefficient of every component,
    /// 300 MB for a 50 MP colour photo without chroma subsampling. 1 GiB holds a 250 MP 4:2:0 photo.
    package static let defaultMaxMemory = 1 << 30
    /// Longest one decode may run: a backstop far above any photo's decode (a 50 MP progressive photo
    /// decodes in about a second), for work the scan and memory limits do not foresee.
    package static let defaultTimeLimit: Duration = .seconds(10)
    /// Whether an arithmetic-coded JPEG may be decoded: not by default. No camera or phone writes one, and
    /// running out of data is legal there (libjpeg feeds zeros without a warning), so a 400-byte file can
    /// declare a 50 MP image that decodes, noise and all, without a complaint.
    package static let defaultAllowsArithmeticCoding = false
    /// The limits every decode has unless told otherwise.
    package static let standard = JPEGDecodeLimits()

    /// Most scans; a JPEG with more is refused from its markers alone, before libjpeg allocates anything.
    package var maxScans: Int
    /// Largest coefficient buffer in bytes (libjpeg's `max_memory_to_use` is this plus room for its row
    /// buffers); a header that needs more is refused before the buffer is allocated.
    package var maxMemory: Int
    /// Longest a decode may run (checked by libjpeg's progress monitor once per row of every scan); nil: no limit.
    package var timeLimit: Duration?
    /// Whether an arithmetic-coded JPEG is decoded (else refused from its header).
    package var allowsArithmeticCoding: Bool

    package init(
        maxScans: Int = defaultMaxScans, maxMemory: Int = defaultMaxMemory, timeLimit: Duration? = defaultTimeLimit,
        allowsArithmeticCoding: Bool = defaultAllowsArithmeticCoding
    ) {
        self.maxScans = max(1, maxScans)
        self.maxMemory = max(0, maxMemory)
        self.timeLimit = timeLimit
        self.allowsArithmeticCoding = allowsArithmeticCoding
    }

    /// Refuses, from its header and markers alone, a JPEG these limits do not allow (`.overLimit`).
    package func check(_ header: JPEGHeader) throws(ImageError) {
        if header.arithmeticCoding && !allowsArithmeticCoding { throw .overLimit(.arithmeticCoding) }
        if header.scans > maxScans { throw .overLimit(.scans(found: header.scans, limit: maxScans)) }
        if header.coefficientBufferBytes > maxMemory { throw .overLimit(.memory(needed: header.coefficientBufferBytes, limit: maxMemory)) }
    }

    /// The shim's form of the limits.
    var shimLimits: bs_jpeg_limits {
        var limits = bs_jpeg_limits()
        limits.refuse_arithmetic = allowsArithmeticCoding ? 0 : 1
        limits.max_scans = Int32(clamping: maxScans)
        limits.max_memory = UInt64(maxMemory)
        if let timeLimit {
            let (seconds, attoseconds) = timeLimit.components
            let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            limits.time_limit_ns = nanoseconds.overflow ? .max : max(1, nanoseconds.partialValue + attoseconds / 1_000_000_000)
        }
        return limits
    }
}
