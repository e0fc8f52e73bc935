// A finished scan on the page: the photo with every spine outlined and numbered (SVG over the
// image; a number and its list entry highlight each other), the numbered list, "Download CSV"
// (the CLI's `--csv`, byte for byte) and "Copy as text".
import { bookLines, csvDocument } from "./booklist.js";

const SVG = "http://www.w3.org/2000/svg";

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
  const fontSize = Math.max(12, Math.round(Math.min(width, height) / 40));
  result.spines.forEach((spine, i) => {
    const points = spine.polygon.map(([x, y]) => `${(x * width).toFixed(1)},${(y * height).toFixed(1)}`).join(" ");
    const unread = !spine.title || !spine.title.trim();
    const group = svgElement("g", { class: unread ? "outline unread" : "outline", tabindex: "0", role: "button", "aria-label": lines[i] });
    group.append(svgElement("polygon", { points }));
    const cx = spine.polygon.reduce((sum, [x]) => sum + x, 0) / 4 * width;
    const cy = spine.polygon.reduce((sum, [, y]) => sum + y, 0) / 4 * height;
    group.append(svgElement("circle", { cx, cy, r: fontSize * 0.9 }));
    const label = svgElement("text", { x: cx, y: cy, "font-size": fontSize, "text-anchor": "middle", "dominant-baseline": "central" });
    label.textContent = String(spine.index + 1);
    group.append(label);
    group.addEventListener("click", () => select(i, "photo"));
    group.addEventListener("keydown", (key) => {
      if (key.key === "Enter" || key.key === " ") {
        key.preventDefault();
        select(i, "photo");
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
  figure.append(svg);

  const actions = element("div", { class: "actions" });
  const csvName = `${imageName.replace(/\.[^.]*$/, "") || "books"}.csv`;
  const download = element("a", { class: "button", download: csvName }, "Download CSV");
  download.href = URL.createObjectURL(new Blob([csvDocument(imageName, result)], { type: "text/csv" }));
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
  actions.append(download, copy, copied);

  const found = element("p", { class: "summary" }, `${result.spines.length} ${result.spines.length === 1 ? "book" : "books"}, ${result.spines.filter((s) => s.title && s.title.trim()).length} read`);
  section.append(figure, found, actions, list);
  return section;
}
