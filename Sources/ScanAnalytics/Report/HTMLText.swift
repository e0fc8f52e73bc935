import Foundation

/// Text for the HTML report: escaping of everything that comes from the log, and the number formats.
enum HTMLText {
    /// Escapes `&`, `<`, `>`, `"` and `'`: safe in element content and in quoted attribute values
    /// (of HTML and of inline SVG alike). Control characters other than tab and newline are dropped.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `85.7%`, the format `bookscan stats` prints.
    static func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }

    /// `0.20 s`, or `–` without a value.
    static func seconds(_ value: Double?) -> String { value.map { String(format: "%.2f s", $0) } ?? "–" }

    /// A coordinate or length in an SVG attribute: at most one decimal, never a locale's comma.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let rounded = (min(max(value, -1e9), 1e9) * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(format: "%.1f", rounded)
    }

    /// `1 run`, `3 runs`.
    static func count(_ value: Int, _ noun: String) -> String { "\(value) \(noun)\(value == 1 ? "" : "s")" }
}
