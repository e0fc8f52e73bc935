import ArgumentParser
import ImagePreparation
import RunModel
import ScanClient

/// bookscan's exit codes: each way a run can end has its own, documented in README and `--help`.
enum ExitStatus: Int32, CaseIterable {
    case success = 0
    case scanFailed = 1
    /// `batch`: some photos failed (the others are done).
    case batchFailures = 2
    case fileNotFound = 3
    /// No permission, an I/O error, or not something one can read.
    case fileUnreadable = 4
    /// Another image format (PNG, HEIC, WebP, GIF…) under a .jpg name.
    case notAJPEG = 5
    /// Corrupt JPEG data (stray markers, bad entropy data, bogus header fields).
    case corruptJPEG = 6
    case rejectedByServer = 7
    case unreachable = 8
    case unauthorized = 9
    case timedOut = 10
    case interrupted = 11
    case jobLost = 12
    case socketUnavailable = 13
    case isDirectory = 14
    case emptyFile = 15
    case truncatedJPEG = 16
    case tooManyPixels = 17
    /// Not an image at all (no known signature).
    case notAnImage = 18
    /// Deleted, replaced or changed while being read.
    case fileVanished = 19
    /// The OCR language data is missing: the service cannot read titles, so it does not start.
    case ocrUnavailable = 20
    /// An output file (`--output`, `--csv`, `--annotate`, `stats --html`) could not be written.
    case outputUnwritable = 21

    /// One line per code for `--help` and the README.
    static let table = """
        Exit codes:
          0  every image scanned successfully
          1  the service scanned an image and the job failed or was canceled
          2  batch: some photos failed (their reasons are in the summary)
          3  an input file does not exist
          4  an input cannot be read (no permission, I/O error)
          5  an input is another image format (PNG, HEIC, WebP, GIF…), not a JPEG
          6  an input JPEG is corrupt (damaged markers or data)
          7  the service refused the image (413, 415, 422, 409)
          8  the service could not be reached
          9  the service refused the token (401/403)
         10  stopped watching after --timeout (the job may still run; re-attach with `bookscan watch`)
         11  interrupted with Ctrl-C (the job may still run; re-attach with `bookscan watch`)
         12  the job vanished on the server and could not be resubmitted
         13  --strategy websocket and the WebSocket could not carry the job
         14  an input is a directory (use `bookscan batch DIR`)
         15  an input file is empty (0 bytes)
         16  an input JPEG is truncated (the file ends before the image does)
         17  an input JPEG declares more pixels than bookscan decodes (e.g. a 60000×60000 header)
         18  an input is not an image at all
         19  an input file vanished or changed while being read
         20  the OCR language data is missing (the scan service does not start)
         21  an output file (--output, --csv, --annotate, stats --html) could not be written
         64  bad command line
        """

    init(_ report: ScanReport) {
        switch report.outcome {
        case .succeeded: self = .success
        case .failed, .canceled: self = .scanFailed
        case .timedOut: self = .timedOut
        case .stopped: self = .interrupted
        case .rejected: self = .rejectedByServer
        case .unreachable: self = .unreachable
        case .unauthorized: self = .unauthorized
        case .jobLost: self = .jobLost
        case .socketUnavailable: self = .socketUnavailable
        case .inputError:
            self = report.inputError.map(Self.init(inputError:)) ?? .corruptJPEG
        }
    }

    /// Each class of bad input has its own code.
    init(inputError: PrepareError) {
        switch inputError {
        case .notFound: self = .fileNotFound
        case .isDirectory: self = .isDirectory
        case .unreadable: self = .fileUnreadable
        case .empty: self = .emptyFile
        case .unsupportedFormat: self = .notAJPEG
        case .notAnImage: self = .notAnImage
        case .corrupt, .encodeFailed: self = .corruptJPEG
        case .truncated: self = .truncatedJPEG
        case .tooLarge: self = .tooManyPixels
        case .vanished: self = .fileVanished
        }
    }

    /// The status of a multi-image run: success only if all succeeded; otherwise the most telling failure.
    static func combined(_ statuses: [ExitStatus]) -> ExitStatus {
        let failures = statuses.filter { $0 != .success }
        guard let first = failures.first else { return .success }
        if failures.contains(.interrupted) { return .interrupted }
        return first
    }

    var exitCode: ExitCode { ExitCode(rawValue) }
}
