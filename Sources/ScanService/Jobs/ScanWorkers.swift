import BookscanBase
import Foundation
import ImageKit
import Logging
import NIOPosix
import ScanEngine
import ScanProtocol
import Synchronization

/// The worker pool: `count` loops that claim jobs from the store and run the scan engine on
/// dedicated threads (never on the cooperative pool, which serves requests and sockets).
struct ScanWorkers: Sendable {
    let store: any JobStore
    let engine: any WorkerEngine
    let count: Int
    let maxPixels: Int
    let metrics: ServiceMetrics
    let logger: Logger

    /// Runs until the store closes or the task is canceled.
    func run() async {
        HeapPolicy.configure()
        let pool = NIOThreadPool(numberOfThreads: count)
        pool.start()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask {
                    while let claimed = await store.claimNext(now: Date()) {
                        await process(claimed, pool: pool)
                    }
                }
            }
            await withTaskCancellationHandler {
                await group.waitForAll()
            } onCancel: {
                store.close()
            }
        }
        try? await pool.shutdownGracefully()
    }

    private func process(_ claimed: ClaimedJob, pool: NIOThreadPool) async {
        let job = claimed.job, image = claimed.image
        metrics.scanStarted()
        let engine = self.engine, maxPixels = self.maxPixels
        do {
            let outcome = try await pool.runIfActive { () -> Result<ScanResult, ScanEngineError> in
                let reporter = JobProgressPublisher(job: job)
                do throws(ScanEngineError) {
                    let result = try engine.scan(
                        jpeg: image, maxPixels: maxPixels,
                        progress: { stage, fraction in reporter.report(stage: stage, fraction: fraction) },
                        isCancelled: { job.stop != nil })
                    return .success(result)
                } catch {
                    return .failure(error)
                }
            }
            if job.stop == .attemptLost {
                // Nobody canceled it: this attempt lost the job (whatever its outcome, the fence refuses
                // what it would write), and another attempt finishes it.
                logger.notice("scan attempt given up; the job runs again", metadata: ["job": "\(job.id)"])
                await job.abandon()
            } else {
                finish(job, outcome)
            }
            // The scan's buffers are free now: their pages go back before the next job (result published first).
            if engine.leavesFreedPages { _ = try? await pool.runIfActive { HeapPolicy.releaseFreed() } }
        } catch {
            await job.abandon()
        }
    }

    private func finish(_ job: any RunningJob, _ outcome: Result<ScanResult, ScanEngineError>) {
        let now = Date()
        switch outcome {
        case .success(let result):
            job.publish(state: .succeeded, stage: .done, fraction: 1, now: now, result: result)
            metrics.scanFinished(result)
            logger.info("scan succeeded", metadata: ["job": "\(job.id)", "spines": "\(result.spines.count)"])
        case .failure(.canceled):
            job.publish(
                state: .canceled, stage: .done, fraction: 0, now: now,
                error: ErrorBody(code: .canceled, message: "the job was canceled", retryable: false))
        case .failure(.image(let error)):
            job.publish(
                state: .failed, stage: .done, fraction: 0, now: now,
                error: ErrorBody(code: .undecodableImage, message: error.description, retryable: false))
            logger.info("scan failed", metadata: ["job": "\(job.id)", "reason": "\(error)"])
        }
    }
}
