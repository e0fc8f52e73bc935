import Foundation
import ScanClient
import ScanProtocol

/// The books of a scan as people and spreadsheets read them: a numbered list for the terminal and
/// CSV rows for `--csv` and `batch`'s `books.csv`. Book N is spine index N-1 everywhere (the list,
/// the CSV and the numbers `--annotate` draws), rows top to bottom, left to right within a row.
enum BookList {
    /// `12. Moby-Dick — Herman Melville`, `13. Dune`, `14. (unread spine, 31 px wide)`.
    static func lines(_ result: ScanResult) -> [String] {
        result.spines.map { spine in
            let number = "\(spine.index + 1)."
            guard let title = spine.title?.trimmed, !title.isEmpty else {
                let side = spine.pose == .lying ? spine.box.height * Double(result.imageHeight) : spine.box.width * Double(result.imageWidth)
                return "\(number) (unread spine, \(Int(side.rounded())) px \(spine.pose == .lying ? "thick" : "wide"))"
            }
            if let author = spine.author?.trimmed, !author.isEmpty { return "\(number) \(title) — \(author)" }
            return "\(number) \(title)"
        }
    }

    /// `lines`, each book followed by why its title is what it is (`--explain`), from the spine's `titleTrace`:
    /// `   the learned decision took a line of the photo (p 0.91 of 4 candidates; the rules gave "MOBY DIK")`.
    static func explained(_ result: ScanResult) -> [String] {
        zip(lines(result), result.spines).map { line, spine in line + "\n   " + explanation(spine.titleTrace) }
    }

    /// Why a spine's title is what it is, in a few words.
    static func explanation(_ trace: TitleTrace?) -> String {
        guard let trace else {
            return "no decision stage ran: the rules' reading stands (the learned decision needs PP-OCR and a spine the rules left untitled)"
        }
        let rules = trace.rulesTitle.map { "the rules gave \"\(ServerText.sanitized($0))\"" } ?? "the rules gave none"
        guard trace.candidates > 0, let p = trace.probability else { return "no candidate: no line of the photo lies on it and \(rules)" }
        let odds = "p \(String(format: "%.2f", p)) of \(trace.candidates) candidate\(trace.candidates == 1 ? "" : "s"); \(rules)"
        switch trace.source {
        case .photoLine: return "the learned decision took a line of the photo (\(odds))"
        case .rules: return "the learned decision kept the rules' title (\(odds))"
        case nil: return "the learned decision found no candidate sure enough (best \(odds))"
        }
    }

    /// The CSV header row.
    static let csvHeader = ["image", "book", "row", "position", "title", "author", "confidence", "text_confidence", "x", "y", "width", "height"]

    /// One CSV row per book of `result` (box in pixels of the original photo; row and position 1-based). Text
    /// fields lose their control characters as the terminal's lines do (`trimmed`): a title read by OCR or sent
    /// by a server may hold ESC, BEL or C1 codes that a spreadsheet or `cat` would act on.
    static func csvRows(image: String, result: ScanResult) -> [[String]] {
        var positions: [Int: Int] = [:]
        return result.spines.map { spine in
            let position = positions[spine.row, default: 0] + 1
            positions[spine.row] = position
            let box = spine.box.pixels(width: result.imageWidth, height: result.imageHeight).map { String(Int($0.rounded())) }
            return [
                image.trimmed, String(spine.index + 1), String(spine.row + 1), String(position), spine.title?.trimmed ?? "", spine.author?.trimmed ?? "",
                fraction(spine.confidence), spine.textConfidence.map(fraction) ?? "",
            ] + box
        }
    }

    /// RFC 4180 text, CRLF line ends, every field through `csvField`. The one CSV writer: `scan --csv`
    /// and `batch`'s `books.csv` both write this.
    static func csv(_ rows: [[String]]) -> String {
        rows.map { row in row.map(csvField).joined(separator: ",") }.map { $0 + "\r\n" }.joined()
    }

    /// One CSV field. Text a spreadsheet would run as a formula (it starts with `=`, `+`, `-`, `@`, a tab
    /// or a carriage return: a title read by OCR, a file name) gets a leading `'` (OWASP's CSV injection
    /// recipe: the cell shows as text, the `'` is the price of a title that really starts with `-`)
    /// and is quoted. Any field with a comma, quote or line break is quoted, its quotes doubled.
    static func csvField(_ field: String) -> String {
        let formula = field.unicodeScalars.first.map { formulaStarts.contains($0) } ?? false
        let text = formula ? "'" + field : field
        // Scalars, not Characters: "\r\n" is one Character, equal to neither "\r" nor "\n".
        guard formula || text.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        var quoted = String.UnicodeScalarView(["\""])
        for scalar in text.unicodeScalars {
            if scalar == "\"" { quoted.append("\"") }  // by scalar: a quote a combining mark follows is still a quote
            quoted.append(scalar)
        }
        quoted.append("\"")
        return String(quoted)
    }

    /// First characters that make a spreadsheet read a cell as a formula.
    private static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]

    private static func fraction(_ value: Double) -> String {
        guard value.isFinite else { return "" }
        return String(Double((min(1, max(0, value)) * 1000).rounded()) / 1000)
    }
}

extension String {
    /// Trimmed, with control characters (a server could send escape sequences) turned into spaces.
    fileprivate var trimmed: String {
        String(String.UnicodeScalarView(unicodeScalars.map { CharacterSet.controlCharacters.contains($0) ? " " : $0 }))
            .trimmingCharacters(in: .whitespaces)
    }
}
