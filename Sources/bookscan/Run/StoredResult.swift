import Foundation
import RunModel
import ScanClient
import ScanProtocol

/// What a batch makes of a photo's stored result file, and so whether `--resume` may skip the photo.
///
/// A result is trusted only when all of this holds, else the photo is scanned again:
/// 1. the file: reached without a symbolic link below the results folder (`ConfinedFolder`), a regular
///    file with one link, owned by the user running bookscan and writable by no one else, at most
///    `BatchResultStore.maxResultFileBytes`;
/// 2. what it says: a `BatchResult` for this photo's relative path, recorded for the photo's current
///    SHA-256 (else the photo changed: `stale`);
/// 3. how the run ended: succeeded (else `stale`: resume retries failures), with the job's terminal
///    `succeeded` state, its jobId, no error, and a result whose books agree with themselves (the spine
///    count, spines numbered 0…n-1 in order, each in an existing row, rows numbered in order, each row's
///    count its spines).
/// A result failing 1, or 2 and 3 in a way bookscan never writes, is `untrusted`: damaged or planted,
/// and the user is told. Nothing can tell a result bookscan wrote from a perfect forgery by the same
/// user; this keeps other users, links and damage out.
enum StoredResult {
    /// No result file: the photo was never scanned into this folder.
    case absent
    /// A result for other bytes, or of a run that did not succeed: scanned again, nothing to say.
    case stale
    /// A result `--resume` may skip the photo for.
    case trusted(BatchResult)
    /// A result bookscan would not have written (the reason says why): scanned again, and the user told.
    case untrusted(Distrust)

    /// Why a stored result is not trusted.
    enum Distrust: Equatable, CustomStringConvertible {
        case unreadable(ConfinedFolder.Failure.Reason)
        case notOwned
        case writableByOthers
        case hardLinked
        case undecodable
        /// It names another photo.
        case otherPhoto(String)
        /// It says the run succeeded but is not a whole result (what is missing or wrong).
        case inconsistent(String)

        var description: String {
            switch self {
            case .unreadable(.symbolicLink): "its result is a symbolic link"
            case .unreadable(.notARegularFile): "its result is not a regular file"
            case .unreadable(.tooLarge(let size)): "its result is too large (\(size) bytes)"
            case .unreadable(let reason): "its result cannot be read (\(ConfinedFolder.Failure(path: "", reason: reason).description))"
            case .notOwned: "its result belongs to another user"
            case .writableByOthers: "its result is writable by other users"
            case .hardLinked: "its result has other hard links"
            case .undecodable: "its result is not a bookscan result"
            case .otherPhoto(let image): "its result is for another photo (\(image))"
            case .inconsistent(let what): "its result is inconsistent (\(what))"
            }
        }
    }

    /// Judges a read result file against the photo at `relative`; `hash` nil skips the content check
    /// (when the photo's bytes are not at hand).
    static func judge(_ file: ConfinedFolder.ReadFile, relative: String, hash: String?) -> StoredResult {
        if file.status.st_uid != geteuid() { return .untrusted(.notOwned) }
        if file.status.st_mode & (S_IWGRP | S_IWOTH) != 0 { return .untrusted(.writableByOthers) }
        if file.status.st_nlink != 1 { return .untrusted(.hardLinked) }
        guard let stored = try? WireCoding.decode(BatchResult.self, from: Data(file.bytes)) else { return .untrusted(.undecodable) }
        guard stored.image == relative else { return .untrusted(.otherPhoto(String(stored.image.prefix(100)))) }
        if let hash, stored.sourceSHA256 != hash { return .stale }
        guard stored.report.outcome == .succeeded else { return .stale }
        if let problem = inconsistency(stored.report) { return .untrusted(.inconsistent(problem)) }
        return .trusted(stored)
    }

    /// What is wrong with a report that says its run succeeded; nil when it is whole.
    static func inconsistency(_ report: ScanReport) -> String? {
        guard report.state == .succeeded else { return "the job's state is not succeeded" }
        guard report.jobId != nil else { return "no jobId" }
        guard report.error == nil else { return "a succeeded run with an error" }
        guard let result = report.result else { return "no books" }
        guard report.spineCount == result.spines.count else { return "spineCount is not the number of spines" }
        for (position, row) in result.rows.enumerated() where row.index != position {
            return "row \(position) is numbered \(row.index)"
        }
        var perRow = [Int](repeating: 0, count: result.rows.count)
        for (position, spine) in result.spines.enumerated() {
            guard spine.index == position else { return "spine \(position) is numbered \(spine.index)" }
            guard perRow.indices.contains(spine.row) else { return "spine \(position) is in no row" }
            perRow[spine.row] += 1
        }
        guard perRow == result.rows.map(\.spineCount) else { return "a row's spineCount is not its number of spines" }
        return nil
    }
}
