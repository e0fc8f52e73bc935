import ScanEngine
import ScanProtocol

/// What a worker runs on a claimed job's photo: the scan engine (`ScanEngine`) in the product; a
/// stand-in from `Faults/` in benchmarks and tests, chosen once at start-up (`ScanServer`).
protocol WorkerEngine: Sendable {
    /// Scans `jpeg`, calling `progress` with the stage and overall fraction as it goes, and stopping
    /// with `.canceled` at its next step once `isCancelled()` is true.
    func scan(jpeg: [UInt8], maxPixels: Int, progress: (ScanStage, Double) -> Void, isCancelled: () -> Bool) throws(ScanEngineError) -> ScanResult
    /// Whether a scan leaves freed image buffers whose pages the worker hands back to the kernel
    /// afterwards (`HeapPolicy.releaseFreed`).
    var leavesFreedPages: Bool { get }
}

extension ScanEngine: WorkerEngine {
    var leavesFreedPages: Bool { true }
}
