import ArgumentParser
import FaultCampaign
import Foundation
import ScanProtocol

extension FaultKind: ExpressibleByArgument {}

/// `fault-campaign`: N jobs through the fault-injecting proxy; a per-fault table; exit 1 on any failure.
@main
struct FaultCampaignCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fault-campaign",
        abstract: "Send N scan jobs through the fault-injecting proxy and check every one.",
        discussion: "Exits 0 when every job is complete and correct, 1 when any job failed, 2 when the campaign could not start.")

    @Option(help: "Number of jobs.")
    var jobs = 54
    @Option(help: "Seed of the random faults (the same seed draws the same campaign).")
    var seed: UInt64 = 6
    @Option(help: "Jobs in flight at once.")
    var concurrency = 12
    @Option(name: .customLong("long-side"), help: "Long side images are prepared to before upload.")
    var longSide = 320
    @Option(name: .customLong("step-delay-ms"), help: "The service's pause after each progress event, in milliseconds.")
    var stepDelayMilliseconds = Int(CampaignConfiguration.defaultScanStepDelay / .milliseconds(1))
    @Option(name: .customLong("only"), help: "Draw only this fault kind (repeatable): \(FaultKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var only: [FaultKind] = []
    @Option(help: "Folder of JPEG images to scan.")
    var images = "SampleImages"
    @Option(name: .customLong("analytics-log"), help: "Keep the analytics log here (default: a temporary file, removed after).")
    var analyticsLog: String?
    @Option(name: .customLong("heartbeat-ms"), help: "The service's heartbeat interval, in milliseconds.")
    var heartbeatMilliseconds = 200
    @Flag(
        name: .customLong("tracker-defaults"),
        help: "Follow jobs with the client's own default timings (as `bookscan` does) instead of the campaign's fast ones.")
    var trackerDefaults = false
    @Flag(help: "Print the report as JSON on stdout.")
    var json = false
    @Flag(help: "Print a line per job as it ends (stderr).")
    var verbose = false

    func validate() throws {
        guard jobs > 0 else { throw ValidationError("--jobs must be at least 1") }
        guard concurrency > 0 else { throw ValidationError("--concurrency must be at least 1") }
        guard longSide >= 64 else { throw ValidationError("--long-side must be at least 64") }
        guard stepDelayMilliseconds >= 0 else { throw ValidationError("--step-delay-ms must not be negative") }
        guard heartbeatMilliseconds >= 10 else { throw ValidationError("--heartbeat-ms must be at least 10") }
    }

    func run() async throws {
        let paths = CampaignConfiguration.images(in: images)
        guard !paths.isEmpty else {
            FileHandle.standardError.write(Data("fault-campaign: \(images): no .jpg images found\n".utf8))
            throw ExitCode(2)
        }
        var configuration = CampaignConfiguration(
            jobs: jobs, seed: seed, concurrency: concurrency, images: paths, longSide: longSide,
            tracker: trackerDefaults ? CampaignConfiguration.productTrackerSettings : CampaignConfiguration.trackerSettings, heartbeat: .milliseconds(heartbeatMilliseconds),
            scanStepDelay: .milliseconds(stepDelayMilliseconds), analyticsLog: analyticsLog)
        if !only.isEmpty { configuration.kinds = only }
        let verbose = self.verbose
        let report: CampaignReport
        do {
            report = try await CampaignRunner(configuration: configuration).run { outcome in
                guard verbose || !outcome.passed else { return }
                let status = outcome.passed ? "ok" : "FAILED \(outcome.failures.joined(separator: "; "))"
                FileHandle.standardError.write(
                    Data("job \(outcome.job.number) \(outcome.job.fault) \(String(format: "%.1f", outcome.seconds)) s: \(status)\n".utf8))
            }
        } catch {
            FileHandle.standardError.write(Data("fault-campaign: \(error)\n".utf8))
            throw ExitCode(2)
        }
        if json {
            let data = try WireCoding.encode(report)
            FileHandle.standardOutput.write(Data(data + [0x0A]))
        } else {
            print(report.table())
        }
        if report.passed != report.jobs { throw ExitCode(1) }
    }
}
