import ScanService
import Testing

/// After each scan a worker hands the freed heap back to the kernel (glibc's malloc_trim, looked up at run time).
@Suite("freed memory")
struct FreedMemoryTests {
    @Test("malloc_trim is found on this libc, so a worker's release after a scan is not a no-op")
    func trimIsFound() {
        #expect(FreedMemory.release())
    }
}
