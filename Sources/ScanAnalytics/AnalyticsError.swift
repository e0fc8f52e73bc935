import Foundation

/// Why the analytics log could not be written.
package enum AnalyticsError: Error, Sendable, CustomStringConvertible {
    case cannotOpen(String, Int32)
    case shortWrite(String)
    case cannotLock(String, Int32)

    package var description: String {
        switch self {
        case .cannotOpen(let path, let code): "cannot open \(path): \(String(cString: strerror(code)))"
        case .shortWrite(let path): "incomplete write to \(path)"
        case .cannotLock(let path, let code): "cannot lock \(path): \(String(cString: strerror(code)))"
        }
    }
}
