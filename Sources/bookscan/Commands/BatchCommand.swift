import ArgumentParser
import Foundation
import ScanClient
import ScanProtocol
import ScanService

/// `bookscan batch DIR`: every shelf photo of a folder, several at once, resumably.
struct BatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "batch",
        abstract: "Scan every .jpg/.jpeg in a folder, several at once; results go to DIR/.bookscan/ (or --out).",
        discussion: """
            Each photo's result is written atomically to OUT/<relative path>.json, and OUT/books.csv lists every
            book of the folder (one row each), rebuilt from those results at the end. With --resume, photos whose
            result exists and whose content hash matches are skipped; a changed photo is rescanned. A failure is
            recorded and the batch goes on. Ctrl-C stops starting new jobs, records running ones as stopped,
            writes what it has and prints the summary. All jobs in flight are followed on one shared events WebSocket
            (GET /v1/events, jobs added and removed as they start and end); each job still falls back on its own
            (SSE, then polling) when that socket fails it.

            Exit codes: 0 all scanned (skips are fine), 2 some photos failed, 11 interrupted, 8 service
            unreachable, 64 bad command line.
            """
    )

    @Argument(help: "The folder of photos.") var directory: String
    @Flag(help: "Include subfolders.") var recursive = false
    @Option(help: "Jobs at once (default: 4; with the embedded service, 2 per core).") var jobs: Int?
    @Option(help: "Where results go (default: DIR/.bookscan).") var out: String?
    @Flag(help: "Skip photos whose result exists for the same bytes.") var resume = false
    @Flag(
        help: ArgumentHelp(
            "Follow each job on an events socket of its own instead of one shared socket for the whole batch.",
            discussion: "For a proxy that mishandles multiplexed subscriptions; fallbacks work per job either way."))
    var socketPerJob = false
    @OptionGroup var tracking: TrackingOptions
    @Flag(help: "Print a machine summary as JSON on stdout.") var json = false
    @Flag(help: "Print nothing but errors.") var quiet = false

    func validate() throws {
        if let jobs, jobs < 1 || jobs > 64 { throw ValidationError("--jobs must be 1…64") }
    }

    func run() async throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("\(directory) is not a folder")
        }
        let settings = try tracking.resolve(with: try ConfigFile.load())
        let root = URL(fileURLWithPath: directory).standardizedFileURL.path
        let outDirectory = URL(fileURLWithPath: out ?? root + "/.bookscan").standardizedFileURL.path
        let found = FolderScanner(root: root, recursive: recursive, excluded: [URL(fileURLWithPath: outDirectory).resolvingSymlinksInPath().path]).scan()

        let interrupt = InterruptSignal()
        let signalTask = await interrupt.install()
        defer { signalTask.cancel() }
        let display = ProgressDisplay(quiet: quiet)
        // The results folder is checked before a service starts: one that is a symbolic link is refused, scanning nothing.
        let store = BatchResultStore(directory: outDirectory)
        do throws(ConfinedFolder.Failure) {
            try store.prepare()
        } catch {
            display.message("bookscan: \(error.description)", error: true)
            throw ExitCode(ExitStatus.outputUnwritable.rawValue)
        }
        let cores = ServiceConfiguration.defaultWorkers
        let endpoint = try await ServiceEndpoint.resolve(server: settings.server, token: settings.token, workers: cores)
        let parallel = jobs ?? (endpoint.embedded == nil ? 4 : 2 * cores)
        let recorder = RunRecorder(tracking: settings, server: endpoint.embedded == nil ? endpoint.baseURL : nil)
        let runner = ScanRunner(endpoint: endpoint, tracking: settings, display: display, verbose: false, recorder: recorder)
        let batch = BatchRunner(
            runner: runner, store: store, display: display, parallel: parallel, resume: resume, sharesEventSocket: !socketPerJob)
        let summary = await batch.run(found.photos, skipped: found.skipped, interrupt: interrupt)
        await runner.finish()
        await endpoint.stop()
        var bookListFailed = false
        do {
            let books = try store.writeBookList(for: found.photos.map(\.relative))
            display.message("books: \(books) in \(store.bookListPath)")
        } catch {
            display.message("bookscan: \(store.bookListPath): could not write the book list: \(error.localizedDescription)", error: true)
            bookListFailed = true
        }

        if json {
            print(String(decoding: try WireCoding.encode(summary), as: UTF8.self))
        }
        display.finish()
        display.message(summary.text(results: outDirectory), error: summary.failed > 0)
        if summary.interrupted { throw ExitCode(ExitStatus.interrupted.rawValue) }
        if summary.failed > 0 { throw ExitCode(ExitStatus.batchFailures.rawValue) }
        if bookListFailed { throw ExitCode(ExitStatus.outputUnwritable.rawValue) }
    }
}
