#if canImport(Glibc)
    import Glibc
#endif

/// How a process that scans photos keeps glibc's heap from holding on to what its scans freed.
///
/// A scan allocates large, short-lived buffers (the gray photo, strips, Tesseract's line images) on
/// several threads, and glibc keeps freed memory in the arena of the thread that freed it. Two settings:
/// - `configure()`: allocations of `ownPagesFrom` bytes or more get pages of their own (mmap) that go back
///   to the kernel when freed. glibc's default threshold starts at 128 KiB but rises to the largest block
///   ever freed (the 12 MB gray photo), after which every such buffer stays resident once used.
/// - `releaseFreed()` after each scan: `malloc_trim(0)` hands the free pages of every arena back.
/// Both are looked up at run time (Swift's Glibc module does not declare malloc.h); no-ops elsewhere.
package enum HeapPolicy {
    /// Blocks at least this large are mapped on their own (`M_MMAP_THRESHOLD`).
    package static let ownPagesFrom: Int32 = 256 * 1024

    private static let mallopt: (@convention(c) (Int32, Int32) -> Int32)? = symbol("mallopt")
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = symbol("malloc_trim")

    private static func symbol<T>(_ name: String) -> T? {
        #if canImport(Glibc)
            guard let address = dlsym(nil, name) else { return nil }
            return unsafeBitCast(address, to: T.self)
        #else
            return nil
        #endif
    }

    /// Applies the mmap threshold to the whole process (all arenas); true when glibc took it.
    @discardableResult
    package static func configure() -> Bool {
        let mmapThreshold: Int32 = -3  // M_MMAP_THRESHOLD in malloc.h
        return mallopt?(mmapThreshold, ownPagesFrom) == 1
    }

    /// Gives every arena's free pages back to the kernel (a few milliseconds); true when glibc could.
    @discardableResult
    package static func releaseFreed() -> Bool {
        guard let mallocTrim else { return false }
        _ = mallocTrim(0)
        return true
    }
}
