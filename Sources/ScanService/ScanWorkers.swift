import Foundation
import ImageKit
import Logging
import NIOPosix
import ScanEngine
import ScanProtocol
import Synchronization

/// The worker pool: `count` loops that take jobs from the scheduler and run the scan engine on
/// dedicated threads (never on the cooperative pool, which serves requests and sockets).
struct ScanWorkers: Sendable {
    let scheduler: ScanScheduler
    let engine: ScanEngine
    let count: Int
    let maxPixels: Int
    let stepDelay: Duration?
    let metrics: ServiceMetrics
    let logger: Logger

    /// Runs until the scheduler closes or the task is canceled.
    func run() async {
        let pool = NIOThreadPool(numberOfThreads: count)
        pool.start()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<count {
                group.addTask {
                    while let job = await scheduler.next() {
                        await process(job, pool: pool)
                    }
                }
            }
            await withTaskCancellationHandler {
                await group.waitForAll()
            } onCancel: {
                scheduler.close()
            }
        }
        try? await pool.shutdownGracefully()
    }

    private func process(_ job: ScanJob, pool: NIOThreadPool) async {
        guard let image = job.start(now: Date()) else { return }
        metrics.scansStarted.add(1, ordering: .relaxed)
        let engine = self.engine, maxPixels = self.maxPixels, stepDelay = self.stepDelay
        do {
            let outcome = try await pool.runIfActive { () -> Result<ScanResult, ScanEngineError> in
                let reporter = ProgressReporter(job: job, stepDelay: stepDelay)
                do throws(ScanEngineError) {
                    let result = try engine.scan(
                        jpeg: image, maxPixels: maxPixels,
                        progress: { stage, fraction in reporter.report(stage: stage, fraction: fraction) },
                        isCancelled: { job.isCancelRequested })
                    return .success(result)
                } catch {
                    return .failure(error)
                }
            }
            finish(job, outcome)
        } catch {
            job.publish(
                state: .failed, stage: .done, fraction: 0, now: Date(),
                error: ErrorBody(code: .internal, message: "the service is shutting down", retryable: true))
        }
    }

    private func finish(_ job: ScanJob, _ outcome: Result<ScanResult, ScanEngineError>) {
        let now = Date()
        switch outcome {
        case .success(let result):
            job.publish(state: .succeeded, stage: .done, fraction: 1, now: now, result: result)
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

/// Counters the service reports on `/healthz`.
final class ServiceMetrics: Sendable {
    let scansStarted = Atomic<Int>(0)
}

/// Turns the engine's many progress callbacks into events: one per stage change or per whole
/// percent, so a long scan shows movement without flooding subscribers.
final class ProgressReporter {
    private let job: ScanJob
    private let stepDelay: Duration?
    private var lastStage: ScanStage?
    private var lastFraction = -1.0

    init(job: ScanJob, stepDelay: Duration?) {
        self.job = job
        self.stepDelay = stepDelay
    }

    func report(stage: ScanStage, fraction: Double) {
        guard stage != lastStage || fraction - lastFraction >= 0.01 else { return }
        lastStage = stage
        lastFraction = fraction
        job.publish(state: .running, stage: stage, fraction: min(fraction, 0.99), now: Date())
        guard let stepDelay else { return }
        // Sleeps in short slices so a cancel request ends the wait; the engine stops at its next poll.
        let end = ContinuousClock.now + stepDelay
        while !job.isCancelRequested {
            let left = end - ContinuousClock.now
            guard left > .zero else { return }
            let (seconds, attoseconds) = min(left, .milliseconds(10)).components
            Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
        }
    }
}
