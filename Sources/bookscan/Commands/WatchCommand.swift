import ArgumentParser
import Foundation
import RunModel
import ScanClient

/// `bookscan watch JOBID`: re-attach to a job that is still running or has finished.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow a job that is running or finished (same tracker, from the first event).",
        discussion: ExitStatus.table
    )

    @Argument(help: "The job id a scan printed.") var jobId: String
    @OptionGroup var tracking: TrackingOptions
    @Flag(help: "Print the final result as JSON on stdout.") var json = false
    @Flag(help: "Print every accepted event as NDJSON on stdout while it runs.") var events = false
    @Flag(help: "Print nothing but errors.") var quiet = false

    func run() async throws {
        guard let id = UUID(uuidString: jobId) else { throw ValidationError("'\(jobId)' is not a job id (a UUID)") }
        let settings = try tracking.resolve(with: try ConfigFile.load())
        guard let server = settings.server else {
            throw ValidationError("watch needs --server or BOOKSCAN_SERVER (jobs of the embedded service end with its process)")
        }
        let interrupt = InterruptSignal()
        let signalTask = await interrupt.install()
        defer { signalTask.cancel() }
        let display = ProgressDisplay(quiet: quiet)
        let endpoint = try await ServiceEndpoint.resolve(server: server, token: settings.token)
        let recorder = RunRecorder(tracking: settings, server: endpoint.baseURL)
        let runner = ScanRunner(endpoint: endpoint, tracking: settings, display: display, verbose: false, recorder: recorder)
        var report = await runner.watch(jobId: id, interrupt: interrupt, printEvents: events)
        report.image = id.uuidString.lowercased()
        if json { ReportPrinter.printJSON(report) }
        display.message(ReportPrinter.summary(report, reattach: server, verbose: false), error: report.outcome != .succeeded)
        let status = ExitStatus(report)
        if status != .success { throw status.exitCode }
    }
}
