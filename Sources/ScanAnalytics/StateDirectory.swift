import Foundation

/// `$XDG_STATE_HOME/bookscan` (default `~/.local/state/bookscan`).
package enum StateDirectory {
    package static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/bookscan" }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return home + "/.local/state/bookscan"
    }
}
