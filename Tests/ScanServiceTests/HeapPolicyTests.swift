import BookscanBase
import Testing

/// The service's heap policy (`ScanWorkers`): large buffers on pages of their own, free pages handed back after each scan.
@Suite("heap policy")
struct HeapPolicyTests {
    @Test("glibc takes the mmap threshold and has malloc_trim, so neither setting is a silent no-op")
    func glibcTakesIt() {
        #expect(HeapPolicy.configure())
        #expect(HeapPolicy.releaseFreed())
    }
}
