import ScanEngine
import ScanProtocol

/// Test seam (`FaultSeams.instantScan`): a worker engine that costs nothing. Every stage is reported
/// once, then an empty result; like the engine, it stops at its next step once told to.
struct InstantScanEngine: WorkerEngine {
    var leavesFreedPages: Bool { false }

    func scan(jpeg: [UInt8], maxPixels: Int, progress: (ScanStage, Double) -> Void, isCancelled: () -> Bool) throws(ScanEngineError) -> ScanResult {
        for stage in [ScanStage.decoding, .findingRows, .segmentingSpines, .readingTitles, .finishing] {
            if isCancelled() { throw .canceled }
            progress(stage, Double(stage.progressRank) / 6)
        }
        return ScanResult(imageWidth: 0, imageHeight: 0, workingWidth: 0, workingHeight: 0, rows: [], spines: [], timings: [])
    }
}
