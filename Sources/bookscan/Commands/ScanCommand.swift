import ArgumentParser
import Foundation
import ImagePreparation
import Logging
import RunModel
import ScanClient
import ScanProtocol

/// `bookscan scan IMAGE...`: prepare, upload and follow each photo's scan job live.
struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Scan shelf photos and follow each job in real time.",
        discussion: """
            With no --server and no BOOKSCAN_SERVER, bookscan starts its own scan service in-process on
            loopback and goes through the same HTTP + WebSocket path.

            \(ExitStatus.table)
            """
    )

    @Argument(help: "JPEG photos of bookshelves.") var images: [String]
    @OptionGroup var tracking: TrackingOptions
    @Flag(help: "Print the final result as JSON on stdout (one object per image).") var json = false
    @Flag(help: "Print every accepted event as NDJSON on stdout while it runs.") var events = false
    @Option(help: "Write the final result JSON to this file.") var output: String?
    @Option(help: "Write the photo with every detected spine outlined and numbered like the book list to this JPEG file.")
    var annotate: String?
    @Option(help: "Write every book (image, book, row, position, title, author, confidences, box) as CSV to this file.")
    var csv: String?
    @Flag(help: "After each book, say why its title is what it is (the reading stage that chose it, how sure, what the rules gave).")
    var explain = false
    @Flag(help: "Print nothing but errors.") var quiet = false
    @Flag(help: "Print retries, fallbacks and timings.") var verbose = false

    func validate() throws {
        guard !images.isEmpty else { throw ValidationError("name at least one image") }
        if images.count > 1 && (output != nil || annotate != nil) {
            throw ValidationError("--output and --annotate take one image")
        }
    }

    func run() async throws {
        let interrupt = InterruptSignal()
        let signalTask = await interrupt.install()
        defer { signalTask.cancel() }
        let display = ProgressDisplay(quiet: quiet)
        let settings: ResolvedTracking
        do {
            settings = try tracking.resolve(with: try ConfigFile.load())
        } catch {
            display.message("bookscan: \(error)", error: true)
            throw ExitCode.validationFailure
        }
        let endpoint: ServiceEndpoint
        do {
            endpoint = try await ServiceEndpoint.resolve(server: settings.server, token: settings.token)
        } catch {
            display.message("bookscan: could not start the embedded scan service: \(error)", error: true)
            throw ExitCode(ExitStatus.unreachable.rawValue)
        }
        let recorder = RunRecorder(tracking: settings, server: endpoint.embedded == nil ? endpoint.baseURL : nil)
        let runner = ScanRunner(endpoint: endpoint, tracking: settings, display: display, verbose: verbose, recorder: recorder)
        var statuses: [ExitStatus] = []
        var books: [[String]] = [BookList.csvHeader]
        var limits: ServiceLimits?
        for (slot, image) in images.enumerated() {
            if interrupt.fired { break }
            if limits == nil { limits = await runner.limits() }
            let report = await runner.scan(image: image, slot: slot, limits: limits, interrupt: interrupt, printEvents: events)
            statuses.append(ExitStatus(report))
            if let result = report.result { books += BookList.csvRows(image: report.image, result: result) }
            if !finish(report, display: display, endpoint: endpoint, server: settings.server) { statuses.append(.outputUnwritable) }
        }
        await runner.finish()
        await endpoint.stop()
        if let csv {
            do { try Data(BookList.csv(books).utf8).write(to: URL(fileURLWithPath: csv), options: .atomic) } catch {
                display.message("bookscan: \(csv): could not write the book list: \(error.localizedDescription)", error: true)
                statuses.append(.outputUnwritable)
            }
        }
        let status = ExitStatus.combined(statuses)
        if status != .success { throw status.exitCode }
    }

    /// Prints and writes one image's results; false when an output file could not be written.
    private func finish(_ report: ScanReport, display: ProgressDisplay, endpoint: ServiceEndpoint, server: String?) -> Bool {
        var written = true
        if json { ReportPrinter.printJSON(report) }
        if let output {
            do { try ReportPrinter.writeJSON(report, to: output) } catch {
                display.message("bookscan: \(output): could not write the result: \(error.localizedDescription)", error: true)
                written = false
            }
        }
        if let annotate, let result = report.result {
            do { try SpineAnnotator.annotate(imagePath: report.image, result: result, output: annotate) } catch {
                display.message("bookscan: \(annotate): could not write the annotated photo: \(error)", error: true)
                written = false
            }
        }
        let line = ReportPrinter.summary(report, reattach: endpoint.embedded == nil ? server : nil, verbose: verbose)
        display.message(line, error: report.outcome != .succeeded)
        // The list of books goes to stdout unless stdout carries JSON (which holds every book) or --quiet.
        if !json, !events, !quiet, let result = report.result { ReportPrinter.printBooks(result, explain: explain) }
        return written
    }
}
