import ArgumentParser
import ImagePreparation
import ScanClient

/// bookscan's exit codes: each way a run can end has its own, documented in README and `--help`.
enum ExitStatus: Int32, CaseIterable {
    case success = 0
    case scanFailed = 1
    /// `batch`: some photos failed (the others are done).
    case batchFailures = 2
    case fileNotFound = 3
    case fileUnreadable = 4
    case notAJPEG = 5
    case corruptJPEG = 6
    case rejectedByServer = 7
    case unreachable = 8
    case unauthorized = 9
    case timedOut = 10
    case interrupted = 11
    case jobLost = 12
    case socketUnavailable = 13

    /// One line per code for `--help` and the README.
    static let table = """
        Exit codes:
          0  every image scanned successfully
          1  the service scanned an image and the job failed or was canceled
          2  batch: some photos failed (their reasons are in the summary)
          3  an input file does not exist
          4  an input is a directory or cannot be read
          5  an input is not a JPEG (PNG, HEIC, WebP, GIF… or not an image)
          6  an input JPEG is empty, truncated, corrupt or too large
          7  the service refused the image (413, 415, 422, 409)
          8  the service could not be reached
          9  the service refused the token (401/403)
         10  stopped watching after --timeout (the job may still run; re-attach with `bookscan watch`)
         11  interrupted with Ctrl-C (the job may still run; re-attach with `bookscan watch`)
         12  the job vanished on the server and could not be resubmitted
         13  --strategy websocket and the WebSocket could not carry the job
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
            switch report.inputError {
            case .notFound: self = .fileNotFound
            case .isDirectory, .unreadable: self = .fileUnreadable
            case .unsupportedFormat, .notAnImage: self = .notAJPEG
            case .empty, .corrupt, .tooLarge, .encodeFailed, .none: self = .corruptJPEG
            }
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
