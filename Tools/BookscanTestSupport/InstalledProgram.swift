import Foundation

/// A program a test needs from the system (Chromium, chromedriver, node): found on PATH, or the test
/// is skipped (as a skip, through `.enabled(if: InstalledProgram.runnable(…))`), except under
/// `CI=true`, where the test runs and records the missing program as an issue.
package enum InstalledProgram {
    /// The first of `names` on PATH that is executable; nil when none is.
    package static func path(_ names: String...) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        return folders.flatMap { folder in names.map { "\(folder)/\($0)" } }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether a test needing one of `names` runs: one is installed, or CI must fail without it.
    package static func runnable(_ names: String...) -> Bool {
        ProcessInfo.processInfo.environment["CI"] == "true"
            || (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":").contains { folder in
                names.contains { FileManager.default.isExecutableFile(atPath: "\(folder)/\($0)") }
            }
    }
}
