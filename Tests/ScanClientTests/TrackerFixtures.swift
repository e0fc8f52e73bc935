import Foundation
import ScanProtocol

/// Events and snapshots of one job for the tracker's pure tests.
struct TrackerFixtures {
    let jobId = UUID()

    func event(_ seq: Int, _ state: JobState = .running, fraction: Double = 0.5) -> JobEvent {
        JobEvent(jobId: jobId, seq: seq, state: state, stage: state.isTerminal ? .done : .segmentingSpines, fraction: fraction, timestamp: Date())
    }

    func snapshot(seq: Int, _ state: JobState = .running, fraction: Double = 0.5) -> JobSnapshot {
        JobSnapshot(
            jobId: jobId, state: state, stage: state == .queued ? .queued : .segmentingSpines, fraction: fraction, seq: seq, createdAt: Date(),
            updatedAt: Date(), startedAt: nil, finishedAt: nil, expiresAt: Date(), imageBytes: 1, result: nil, error: nil,
            links: JobLinks(jobId: jobId))
    }
}
