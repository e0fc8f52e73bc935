/// What one fuzz input led to: a result, a typed refusal, or a broken invariant (a bug to fix).
package enum FuzzOutcome: Sendable, Equatable, CustomStringConvertible {
    /// The input was accepted; the text says what came out.
    case accepted(String)
    /// The input was refused with the typed error the code promises; the text is that error.
    case rejected(String)
    /// The code did something it must never do (wrong error type, unstable round trip, bad output).
    case violation(String)

    package var isViolation: Bool {
        if case .violation = self { return true }
        return false
    }

    package var description: String {
        switch self {
        case .accepted(let what): "accepted: \(what)"
        case .rejected(let why): "rejected: \(why)"
        case .violation(let what): "VIOLATION: \(what)"
        }
    }
}
