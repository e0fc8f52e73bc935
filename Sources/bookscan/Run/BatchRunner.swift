import BookscanBase
import Foundation
import ImagePreparation
import NIOConcurrencyHelpers
import RunModel
import ScanClient
import ScanProtocol

/// Runs a batch: up to `parallel` photos through prepare → upload → track at once, writing each
/// result as it ends, with an overall line (counts, throughput, ETA).
struct BatchRunner: Sendable {
    let runner: ScanRunner
    let store: BatchResultStore
    let display: ProgressDisplay
    let parallel: Int
    let resume: Bool
    /// Whether jobs share one multiplexed events socket (when the server offers it).
    let sharesEventSocket: Bool

    func run(_ photos: [FolderScanner.Found], skipped: [FolderScanner.Skipped], interrupt: InterruptSignal) async -> BatchSummary {
        let started = ContinuousClock.now
        var summary = BatchSummary(total: photos.count, parallel: parallel)
        summary.skipped = skipped.map { .init(image: $0.relative, reason: $0.reason) }
        do throws(ConfinedFolder.Failure) {
            try store.prepare()
        } catch {
            // Nowhere safe to write: nothing starts (the book list then fails the same way).
            display.message("bookscan: \(error)\(error.reason == .symbolicLink ? " (give a real folder with --out)" : "")", error: true)
            summary.notStarted = photos.map(\.relative)
            return summary
        }
        var queue: [(FolderScanner.Found, String?)] = []
        for photo in photos {
            let hash = BatchResultStore.hash(photo.path)
            if resume, let hash {
                switch store.stored(photo.relative, hash: hash) {
                case .trusted:
                    summary.skipped.append(.init(image: photo.relative, reason: "unchanged since its result (--resume)"))
                    summary.unchanged += 1
                    continue
                case .untrusted(let distrust):
                    display.message("bookscan: \(photo.relative): \(distrust); scanning it again", error: true)
                case .absent, .stale:
                    break
                }
            }
            queue.append((photo, hash))
        }
        let limits = await runner.limits()
        let shared = sharesEventSocket ? runner.sharedEventSocket(limits: limits) : nil
        let progress = NIOLockedValueBox(summary)
        let work = queue
        let queued = work.count
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            var running = 0
            while next < queued || running > 0 {
                if running < parallel, next < queued, !interrupt.fired {
                    let (photo, hash) = work[next]
                    let slot = next
                    next += 1
                    running += 1
                    group.addTask {
                        let photoStarted = ContinuousClock.now
                        let forced = interrupt.onForcedExit {
                            var stopped = ScanRunner.forcedStop(image: photo.relative, since: photoStarted)
                            stopped.image = photo.relative
                            try? store.write(BatchResult(image: photo.relative, sourceSHA256: hash ?? "", report: stopped))
                        }
                        var report = await runner.scan(
                            image: photo.path, slot: slot, limits: limits, interrupt: interrupt, printEvents: false, command: "batch",
                            sharedSocket: shared)
                        if report.inputError == .notFound {
                            // It was there when the folder was listed: it vanished before its turn.
                            report.inputError = .vanished("deleted after the folder was listed, before its turn")
                            report.error = report.inputError?.description
                        }
                        var stored = report
                        stored.image = photo.relative
                        // A second Ctrl-C may have written it as stopped: then this never returns (the process is exiting).
                        await interrupt.finishing(forced) {
                            do {
                                try store.write(BatchResult(image: photo.relative, sourceSHA256: hash ?? "", report: stored))
                            } catch {
                                display.message("bookscan: \(photo.relative): could not write its result: \(error)", error: true)
                            }
                        }
                        let line = progress.withLockedValue { s in
                            s.add(stored)
                            return s.overallLine(elapsed: ContinuousClock.now - started, queued: queued)
                        }
                        if report.outcome != .succeeded {
                            display.message("bookscan: \(photo.relative): \(report.error ?? report.outcome.rawValue)", error: true)
                        }
                        display.overall(line, print: true)
                    }
                    continue
                }
                if next < queued && interrupt.fired {
                    // Ctrl-C: start nothing new; what never started is recorded as not started.
                    let rest = work[next...].map(\.0.relative)
                    progress.withLockedValue { s in s.notStarted += rest }
                    next = queued
                }
                await group.next()
                running -= 1
            }
        }
        await shared?.close()
        var final = progress.withLockedValue { $0 }
        final.wallSeconds = (ContinuousClock.now - started).inSeconds
        final.interrupted = interrupt.fired
        return final
    }
}

