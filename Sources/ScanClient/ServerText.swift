/// Text a server wrote (an error's `message`) made fit to show: on a terminal, in a log line, in
/// `--json` output. Control characters (C0, DEL, C1) and whole terminal escape sequences (CSI, OSC and
/// the other `ESC x` forms) are dropped, line breaks and tabs become spaces, invisible format characters
/// (bidirectional overrides, zero-width marks) are dropped, and the text is cut to `maxScalars` with
/// an ellipsis. A server's words reach the user only through here.
package enum ServerText {
    /// The most Unicode scalars of server text shown, the ellipsis included.
    package static let maxScalars = 300

    /// `text` without control characters and escape sequences, at most `maxScalars` long.
    package static func sanitized(_ text: String) -> String {
        var kept = String.UnicodeScalarView()
        var count = 0
        var truncated = false
        var escape = EscapeState.none
        for scalar in text.unicodeScalars {
            if escape.consumes(scalar) { continue }
            if let start = EscapeState(starting: scalar) {
                escape = start
                continue
            }
            let shown: Unicode.Scalar
            switch scalar.properties.generalCategory {
            case .control: shown = " "  // C0, DEL, C1 (ESC and CSI started a sequence above)
            case .format, .lineSeparator, .paragraphSeparator: continue
            default: shown = scalar
            }
            if shown == " ", kept.last == " " || kept.isEmpty { continue }  // a run of spaces and breaks reads as one space
            guard count < maxScalars else {
                truncated = true
                break
            }
            kept.append(shown)
            count += 1
        }
        if truncated { kept.removeLast() }  // room for the ellipsis
        while kept.last == " " { kept.removeLast() }
        return truncated ? String(kept) + "…" : String(kept)
    }

    /// Where a terminal escape sequence being skipped stands.
    private enum EscapeState {
        case none
        /// After ESC: the next scalar says which sequence this is.
        case escape
        /// CSI (`ESC [` or U+009B): parameters and intermediates until a final byte 0x40…0x7E.
        case controlSequence
        /// OSC, DCS, SOS, PM, APC (`ESC ]`, `ESC P`…, or their C1 forms): a string until BEL or ST.
        case string
        /// Inside a string sequence, just after an ESC (the first half of ST, `ESC \`).
        case stringEscape

        /// The state a scalar starts, when it starts a sequence.
        init?(starting scalar: Unicode.Scalar) {
            switch scalar.value {
            case 0x1B: self = .escape
            case 0x9B: self = .controlSequence
            case 0x90, 0x98, 0x9D, 0x9E, 0x9F: self = .string
            default: return nil
            }
        }

        /// Whether `scalar` belongs to the sequence being skipped (updating the state).
        mutating func consumes(_ scalar: Unicode.Scalar) -> Bool {
            let value = scalar.value
            switch self {
            case .none:
                return false
            case .escape:
                switch value {
                case 0x5B: self = .controlSequence  // [
                case 0x5D, 0x50, 0x58, 0x5E, 0x5F: self = .string  // ] P X ^ _
                case 0x20...0x2F: break  // intermediates of a short escape (`ESC ( B`)
                default: self = .none  // the final byte of a short escape
                }
                return true
            case .controlSequence:
                if (0x40...0x7E).contains(value) || value > 0x7E { self = .none }
                return (0x20...0x7E).contains(value)  // a stray non-ASCII scalar ends it and is shown
            case .string:
                if value == 0x07 || value == 0x9C { self = .none } else if value == 0x1B { self = .stringEscape }
                return true
            case .stringEscape:
                self = value == 0x5C ? .none : .string
                return true
            }
        }
    }
}
