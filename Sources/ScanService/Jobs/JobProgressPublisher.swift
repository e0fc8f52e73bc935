import BookscanBase
import Foundation
import ScanProtocol

/// Turns the engine's many progress callbacks into job events: one per stage change or per whole
/// percent, so a long scan shows movement without flooding subscribers.
final class JobProgressPublisher {
    private let job: any RunningJob
    private let stepDelay: Duration?
    private var lastStage: ScanStage?
    private var lastFraction = -1.0

    init(job: any RunningJob, stepDelay: Duration?) {
        self.job = job
        self.stepDelay = stepDelay
    }

    func report(stage: ScanStage, fraction: Double) {
        guard stage != lastStage || fraction - lastFraction >= 0.01 else { return }
        lastStage = stage
        lastFraction = fraction
        job.publish(state: .running, stage: stage, fraction: min(fraction, 0.99), now: Date())
        guard let stepDelay else { return }
        // Test seam (`FaultSeams.scanStepDelay`): sleeps in short slices so a cancel request (or a lost attempt) ends
        // the wait; the engine stops at its next poll.
        let end = ContinuousClock.now + stepDelay
        while job.stop == nil {
            let left = end - ContinuousClock.now
            guard left > .zero else { return }
            Thread.sleep(forTimeInterval: min(left, .milliseconds(10)).inSeconds)
        }
    }
}
