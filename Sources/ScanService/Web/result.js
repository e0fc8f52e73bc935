// A finished scan on the page: the photo with every spine outlined and numbered (SVG over the
// image; a number and its list entry highlight each other), the numbered list, "Download CSV"
// (the CLI's `--csv`, byte for byte) and "Copy as text".
import { bookLines, csvDocument } from "./booklist.js";

const SVG = "http://www.w3.org/2000/svg";
/** The height of a book's number on the photo, in screen pixels (readable and tappable on a phone). */
const LABEL_PX = 14;

function element(name, attributes = {}, text = null) {
  const node = document.createElement(name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text !== null) node.textContent = text;
  return node;
}

function svgElement(name, attributes = {}) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

/** Copies `text`: the Clipboard API where the page is a secure context, else a selected text area. */
async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = element("textarea", { readonly: "", class: "offscreen" });
  area.value = text;
  document.body.append(area);
  area.select();
  const copied = document.execCommand("copy");
  area.remove();
  if (!copied) throw new Error("the browser refused to copy");
}

/** Builds the result view of `result` for the photo `imageName` (`photoURL`: the uploaded photo, when this browser still has it). */
export function renderResult({ result, imageName, photoURL = null }) {
  const section = element("section", { class: "result", "aria-label": `books in ${imageName}` });
  const { imageWidth: width, imageHeight: height } = result;
  const lines = bookLines(result);

  const figure = element("figure", { class: "photo" });
  const svg = svgElement("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `${result.spines.length} spines outlined` });
  if (photoURL) svg.append(svgElement("image", { href: photoURL, x: 0, y: 0, width, height }));
  else svg.append(svgElement("rect", { class: "no-photo", x: 0, y: 0, width, height }));
  const list = element("ol", { class: "books" });
  const outlines = [];
  const entries = [];
  const select = (index, from) => {
    outlines.forEach((outline, i) => outline.classList.toggle("selected", i === index));
    entries.forEach((entry, i) => entry.setAttribute("aria-current", String(i === index)));
    if (from === "photo") entries[index]?.scrollIntoView({ block: "nearest", behavior: "smooth" });
    if (from === "list") outlines[index]?.scrollIntoView?.({ block: "nearest", behavior: "smooth" });
  };
  // One tab stop for the whole photo (a roving tabindex): arrow keys move between the books inside it.
  let focused = 0;
  const focusOutline = (index) => {
    if (outlines.length === 0) return;
    focused = (index + outlines.length) % outlines.length;
    outlines.forEach((outline, i) => outline.setAttribute("tabindex", i === focused ? "0" : "-1"));
    outlines[focused].focus();
    select(focused, "photo");
  };
  const labels = [];
  result.spines.forEach((spine, i) => {
    const points = spine.polygon.map(([x, y]) => `${(x * width).toFixed(1)},${(y * height).toFixed(1)}`).join(" ");
    const unread = !spine.title || !spine.title.trim();
    const group = svgElement("g", { class: unread ? "outline unread" : "outline", tabindex: i === 0 ? "0" : "-1", role: "button", "aria-label": lines[i] });
    group.append(svgElement("polygon", { points }));
    const cx = spine.polygon.reduce((sum, [x]) => sum + x, 0) / 4 * width;
    const cy = spine.polygon.reduce((sum, [, y]) => sum + y, 0) / 4 * height;
    const circle = svgElement("circle", { cx, cy });
    const label = svgElement("text", { x: cx, y: cy, "text-anchor": "middle", "dominant-baseline": "central" });
    label.textContent = String(spine.index + 1);
    group.append(circle, label);
    labels.push({ cx, cy, row: spine.row, circle, label });
    group.addEventListener("click", () => {
      focused = i;
      outlines.forEach((outline, j) => outline.setAttribute("tabindex", j === i ? "0" : "-1"));
      select(i, "photo");
    });
    group.addEventListener("keydown", (key) => {
      if (key.key === "Enter" || key.key === " ") {
        key.preventDefault();
        select(i, "photo");
      } else if (key.key === "ArrowRight" || key.key === "ArrowDown") {
        key.preventDefault();
        focusOutline(i + 1);
      } else if (key.key === "ArrowLeft" || key.key === "ArrowUp") {
        key.preventDefault();
        focusOutline(i - 1);
      } else if (key.key === "Home" || key.key === "End") {
        key.preventDefault();
        focusOutline(key.key === "Home" ? 0 : outlines.length - 1);
      }
    });
    svg.append(group);
    outlines.push(group);

    const entry = element("li", { value: String(spine.index + 1), class: unread ? "unread" : "" });
    const button = element("button", { type: "button", class: "book" });
    const line = lines[i].replace(/^\d+\.\s/, "");
    button.textContent = line;
    button.addEventListener("click", () => select(i, "list"));
    entry.append(button);
    list.append(entry);
    entries.push(entry);
  });
  // Labels sized in screen pixels whatever the photo's size, and kept apart: in each row a label goes on the
  // first level where it clears the last label by its width (as many levels as the row needs, centred on the row).
  const placeLabels = () => {
    const shown = svg.getBoundingClientRect().width;
    if (!shown) return;
    const perPixel = width / shown;
    const font = LABEL_PX * perPixel;
    const radius = font * 0.9;
    const rows = new Map();
    for (const entry of labels) rows.set(entry.row, [...(rows.get(entry.row) ?? []), entry]);
    for (const row of rows.values()) {
      row.sort((a, b) => a.cx - b.cx);
      const lastOnLevel = [];
      for (const entry of row) {
        let level = lastOnLevel.findIndex((cx) => entry.cx - cx >= 2.1 * radius);
        if (level < 0) level = lastOnLevel.length;
        lastOnLevel[level] = entry.cx;
        entry.level = level;
      }
      const middle = row.reduce((sum, entry) => sum + entry.cy, 0) / row.length;
      for (const entry of row) {
        const y = Math.min(height - radius, Math.max(radius, middle + (entry.level - (lastOnLevel.length - 1) / 2) * 2.2 * radius));
        entry.circle.setAttribute("cy", y);
        entry.circle.setAttribute("r", radius);
        entry.label.setAttribute("y", y);
        entry.label.setAttribute("font-size", font);
      }
    }
  };
  if (typeof ResizeObserver === "function") new ResizeObserver(placeLabels).observe(svg);
  requestAnimationFrame(placeLabels);
  figure.append(svg);

  const actions = element("div", { class: "actions" });
  const csvName = `${imageName.replace(/\.[^.]*$/, "") || "books"}.csv`;
  const download = element("a", { class: "button", download: csvName }, "Download CSV");
  download.href = URL.createObjectURL(new Blob([csvDocument(imageName, result)], { type: "text/csv" }));
  const zoom = element("button", { type: "button", class: "button", "aria-pressed": "false" }, "Zoom photo");
  zoom.addEventListener("click", () => {
    const zoomed = figure.classList.toggle("zoomed");
    zoom.setAttribute("aria-pressed", String(zoomed));
    zoom.textContent = zoomed ? "Fit photo" : "Zoom photo";
  });
  const copy = element("button", { type: "button", class: "button" }, "Copy as text");
  const copied = element("span", { class: "small", role: "status" });
  copy.addEventListener("click", async () => {
    try {
      await copyText(lines.join("\n") + "\n");
      copied.textContent = "copied";
    } catch (error) {
      copied.textContent = error.message;
    }
  });
  actions.append(download, copy, zoom, copied);

  const found = element("p", { class: "summary" }, `${result.spines.length} ${result.spines.length === 1 ? "book" : "books"}, ${result.spines.filter((s) => s.title && s.title.trim()).length} read`);
  section.append(figure, found, actions, list);
  return section;
}
