import BookscanBase
import Foundation
import ScanProtocol

/// Test seam (`FaultSeams.scanStepDelay`): a claimed job whose worker sleeps after each progress
/// event it publishes, so scans last long enough to disturb. The sleep is cut into short slices, so a
/// cancel request (or a lost attempt) ends it; the engine then stops at its next poll.
struct StepDelayedJob: RunningJob {
    let base: any RunningJob
    let delay: Duration

    var id: UUID { base.id }
    var stop: JobStop? { base.stop }

    func abandon() async { await base.abandon() }

    func appendEvent(state: JobState, stage: ScanStage, fraction: Double, now: Date, result: ScanResult?, error: ErrorBody?) -> Bool {
        let appended = base.appendEvent(state: state, stage: stage, fraction: fraction, now: now, result: result, error: error)
        guard state == .running else { return appended }
        let end = ContinuousClock.now + delay
        while base.stop == nil {
            let left = end - ContinuousClock.now
            guard left > .zero else { break }
            Thread.sleep(forTimeInterval: min(left, .milliseconds(10)).inSeconds)
        }
        return appended
    }
}
