// The books of a result as people and spreadsheets read them: the browser's copy of the CLI's
// BookList (Sources/bookscan/Output/BookList.swift), byte for byte: the same numbered lines and the
// same CSV (columns, RFC 4180 quoting, CRLF, the `'` before text a spreadsheet would run as a formula).

/** The CSV header row (BookList.csvHeader). */
export const CSV_HEADER = ["image", "book", "row", "position", "title", "author", "confidence", "text_confidence", "x", "y", "width", "height"];

const CONTROL = /[\p{Cc}\p{Cf}]/gu;
const FORMULA_STARTS = new Set(["=", "+", "-", "@", "\t", "\r"]);

/** Trimmed, control characters turned into spaces (a server could send escape sequences). */
export function trimmed(text) {
  return (text ?? "").replace(CONTROL, " ").replace(/^[ \t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+|[ \t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+$/gu, "");
}

/** `12. Moby-Dick — Herman Melville`, `13. Dune`, `14. (unread spine, 31 px wide)`. */
export function bookLine(spine, result) {
  const number = `${spine.index + 1}.`;
  const title = trimmed(spine.title);
  if (!title) {
    const lying = spine.pose === "lying";
    const side = lying ? spine.box.height * result.imageHeight : spine.box.width * result.imageWidth;
    return `${number} (unread spine, ${swiftRound(side)} px ${lying ? "thick" : "wide"})`;
  }
  const author = trimmed(spine.author);
  return author ? `${number} ${title} — ${author}` : `${number} ${title}`;
}

/** Every book's line. */
export function bookLines(result) {
  return result.spines.map((spine) => bookLine(spine, result));
}

/** Swift's `Int(x.rounded())`: half away from zero. */
function swiftRound(value) {
  return Math.sign(value) * Math.round(Math.abs(value));
}

/** Swift's `String(Double)` of a fraction rounded to 3 places ("1.0", "0.5", "0.123"). */
function fraction(value) {
  if (typeof value !== "number" || !Number.isFinite(value)) return "";
  const rounded = Math.round(Math.min(1, Math.max(0, value)) * 1000) / 1000;
  return Number.isInteger(rounded) ? rounded.toFixed(1) : String(rounded);
}

/** `text` with control characters (Unicode Cc and Cf) turned into spaces and the ends trimmed (BookList's `trimmed`). */
export function withoutControls(text) {
  return text.replace(/[\p{Cc}\p{Cf}]/gu, " ").replace(/^[\p{Zs}\t]+|[\p{Zs}\t]+$/gu, "");
}

/** One CSV row per book (box in pixels of the original photo; row and position 1-based); text fields without control characters. */
export function csvRows(image, result) {
  const positions = new Map();
  return result.spines.map((spine) => {
    const position = (positions.get(spine.row) ?? 0) + 1;
    positions.set(spine.row, position);
    const { x, y, width, height } = spine.box;
    const box = [x * result.imageWidth, y * result.imageHeight, width * result.imageWidth, height * result.imageHeight].map((v) => String(swiftRound(v)));
    return [
      withoutControls(image), String(spine.index + 1), String(spine.row + 1), String(position), withoutControls(spine.title ?? ""), withoutControls(spine.author ?? ""),
      fraction(spine.confidence), spine.textConfidence === undefined || spine.textConfidence === null ? "" : fraction(spine.textConfidence),
      ...box,
    ];
  });
}

/** One CSV field (BookList.csvField). */
export function csvField(field) {
  const first = field.codePointAt(0);
  const formula = first !== undefined && FORMULA_STARTS.has(String.fromCodePoint(first));
  const text = formula ? `'${field}` : field;
  if (!formula && !/[,"\n\r]/.test(text)) return text;
  return `"${text.replaceAll('"', '""')}"`;
}

/** RFC 4180 text with CRLF line ends. */
export function csv(rows) {
  return rows.map((row) => `${row.map(csvField).join(",")}\r\n`).join("");
}

/** The whole CSV `--csv` writes for one photo: header, then its books. */
export function csvDocument(image, result) {
  return csv([CSV_HEADER, ...csvRows(image, result)]);
}
