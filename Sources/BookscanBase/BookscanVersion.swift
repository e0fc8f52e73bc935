import CBuildInfo

/// The bookscan release this build is: reported by the service, the CLI and every analytics record.
package enum BookscanVersion {
    /// The semantic version of this build (CHANGELOG.md names each one; scripts/release tags it).
    package static let current = "0.2.0"

    /// The git commit a packaged build was made from (12 hex digits at most); nil for a build from a
    /// work tree that was not told (`swift build`).
    package static let commit: String? = {
        let commit = String(cString: bookscan_build_commit())
        return commit.isEmpty ? nil : String(commit.prefix(12))
    }()

    /// `0.2.0 (commit 1a2b3c4d5e6f)`, or `0.2.0 (development build)`.
    package static var withCommit: String { "\(current) (\(commit.map { "commit \($0)" } ?? "development build"))" }
}
