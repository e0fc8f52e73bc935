import Foundation
import ScanProtocol

/// Turns the engine's many progress callbacks into job events: one per stage change or per whole
/// percent, so a long scan shows movement without flooding subscribers.
final class JobProgressPublisher {
    private let job: any RunningJob
    private var lastStage: ScanStage?
    private var lastFraction = -1.0

    init(job: any RunningJob) {
        self.job = job
    }

    func report(stage: ScanStage, fraction: Double) {
        guard stage != lastStage || fraction - lastFraction >= 0.01 else { return }
        lastStage = stage
        lastFraction = fraction
        job.publish(state: .running, stage: stage, fraction: min(fraction, 0.99), now: Date())
    }
}
