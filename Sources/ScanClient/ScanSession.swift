import BookscanBase
package import Foundation
package import ImagePreparation
import Logging
import RunModel
import ScanProtocol
import Synchronization

/// One image through the whole data path: prepare → upload (while the tracker listens) → track →
/// result. A job the server lost (404, e.g. after a restart) is resubmitted once with the same
/// jobId and the same bytes: the PUT is idempotent, so this can never make two jobs.
package struct ScanSession: Sendable {
    package let api: ScanAPI
    package let tracker: ProgressTracker
    package let timeout: Duration?

    package init(api: ScanAPI, tracker: ProgressTracker, timeout: Duration?) {
        self.api = api
        self.tracker = tracker
        self.timeout = timeout
    }

    /// Callbacks for the display.
    package struct Display: Sendable {
        package var prepared: @Sendable (PreparedImage) -> Void = { _ in }
        package var uploadProgress: @Sendable (Int, Int) -> Void = { _, _ in }
        package var uploadRetry: @Sendable (Int, ScanAPIError, Duration) -> Void = { _, _, _ in }
        package var tracker: TrackerObserver = .init()
        package init() {}
    }

    /// Makes a fresh stream that yields once when the user interrupts (at once if they already did).
    /// A stream ends with the run that consumed it, so each tracked run (a resubmission too) needs its own.
    package typealias Interrupts = @Sendable () -> AsyncStream<Void>

    /// Scans the file at `path`. Never throws: every way a run can end is a `ScanReport`.
    package func scan(path: String, preparer: ImagePreparer, interrupts: Interrupts? = nil, display: Display = .init()) async -> ScanReport {
        let clock = ContinuousClock()
        let started = clock.now
        let prepared: PreparedImage
        do {
            prepared = try preparer.prepare(path: path)
        } catch {
            var report = ScanReport(image: path, outcome: .inputError, totalSeconds: (clock.now - started).inSeconds)
            report.error = error.description
            report.inputError = error
            return report
        }
        display.prepared(prepared)
        var report = await upload(prepared, jobId: UUID(), path: path, interrupts: interrupts, display: display)
        report.prepareMilliseconds = prepared.milliseconds
        report.totalSeconds = (clock.now - started).inSeconds
        return report
    }

    /// Uploads prepared bytes as `jobId` and follows the job to its end.
    package func upload(_ prepared: PreparedImage, jobId: UUID, path: String, interrupts: Interrupts?, display: Display) async -> ScanReport {
        var report = ScanReport(image: path, outcome: .stopped, totalSeconds: 0)
        report.jobId = jobId
        report.bytesUp = prepared.jpeg.count
        let attempts = Atomic<Int>(0)
        let api = self.api
        // What the first submission showed: the resubmitted job's events are numbered after it and
        // its run continues from it, so the stream never goes back.
        var shown: JobEvent?
        for submission in 0...1 {
            report.resubmissions = submission
            let continueAfter = shown?.seq ?? 0
            let upload: @Sendable () async -> Result<JobSnapshot, ScanAPIError> = {
                attempts.add(1, ordering: .relaxed)
                do throws(ScanAPIError) {
                    return .success(
                        try await api.upload(
                            jobId: jobId, jpeg: prepared.jpeg, continuingAfter: continueAfter, progress: display.uploadProgress,
                            onRetry: { attempt, error, delay in
                                attempts.add(1, ordering: .relaxed)
                                display.uploadRetry(attempt, error, delay)
                            }))
                } catch { return .failure(error) }
            }
            do throws(ProgressTracker.UploadFailed) {
                let run = try await tracker.run(
                    jobId: jobId, upload: upload, timeout: timeout, interrupts: interrupts?(), observer: display.tracker, continuing: shown)
                report.record(run)
                report.uploadAttempts = attempts.load(ordering: .relaxed)
                if case .jobLost = run.ending, submission == 0 {
                    shown = run.lastShown
                    continue
                }
                apply(run.ending, to: &report)
                return report
            } catch {
                report.uploadAttempts = attempts.load(ordering: .relaxed)
                report.uploadSeconds = error.seconds
                apply(uploadError: error.error, to: &report)
                return report
            }
        }
        return report
    }

    /// Re-attaches to a job by id (`bookscan watch`): no upload, the tracker starts from `after=0`.
    package func watch(jobId: UUID, interrupts: Interrupts?, display: Display) async -> ScanReport {
        var report = ScanReport(image: "-", outcome: .stopped, totalSeconds: 0)
        report.jobId = jobId
        let api = self.api
        do throws(ProgressTracker.UploadFailed) {
            let run = try await tracker.run(
                jobId: jobId,
                upload: {
                    do throws(ScanAPIError) { return .success(try await api.status(jobId: jobId)) } catch { return .failure(error) }
                }, timeout: timeout, interrupts: interrupts?(), observer: display.tracker)
            report.record(run)
            apply(run.ending, to: &report)
            report.totalSeconds = run.totalSeconds
        } catch {
            apply(uploadError: error.error, to: &report)
            if case .http(404, _) = error.error {
                report.outcome = .jobLost
                report.error = "the server does not know job \(jobId.uuidString.lowercased()) (expired, or the server restarted)"
            }
        }
        return report
    }

    private func apply(_ ending: TrackerEnding, to report: inout ScanReport) {
        switch ending {
        case .terminal(let event):
            report.state = event.state
            report.result = event.result
            report.spineCount = event.result?.spines.count
            switch event.state {
            case .succeeded: report.outcome = .succeeded
            case .canceled: report.outcome = .canceled
            default:
                report.outcome = .failed
                let message = event.error.map { ServerText.sanitized($0.message) } ?? ""
                report.error = message.isEmpty ? "the scan failed" : message
            }
        case .timedOut:
            report.outcome = .timedOut
            report.error = "stopped watching after the timeout; the job may still be running"
        case .interrupted:
            report.outcome = .stopped
            report.error = "stopped watching (interrupted); the job may still be running"
        case .jobLost:
            report.outcome = .jobLost
            report.error = "the server no longer knows the job, even after resubmitting it"
        case .unauthorized(let status):
            report.outcome = .unauthorized
            report.error = "the server refused the token (HTTP \(status)); set BOOKSCAN_TOKEN"
        case .socketUnavailable(let reason):
            report.outcome = .socketUnavailable
            report.error = "the WebSocket could not carry the job (\(reason.rawValue)); try --strategy auto"
        }
    }

    private func apply(uploadError error: ScanAPIError, to report: inout ScanReport) {
        report.error = error.description
        switch error {
        case .http(let status, _) where status == 401 || status == 403: report.outcome = .unauthorized
        case .http(let status, _) where [400, 409, 413, 415, 422].contains(status): report.outcome = .rejected
        case .http: report.outcome = .unreachable
        case .transport(let transport) where transport.kind == .canceled: report.outcome = .stopped
        case .transport(let transport) where transport.kind == .tlsVerification:
            report.outcome = .unreachable
            report.error = "the server's TLS certificate is not trusted (\(transport.message)); "
                + "if a private CA signed it, pass --cacert FILE"
        case .transport: report.outcome = .unreachable
        case .badResponse: report.outcome = .unreachable
        }
    }
}
